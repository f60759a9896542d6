"""``vitabench compare`` on two paper-suite runs: reference agent with full_context vs groundtruth memory.

    python benchmarks/bench_compare.py            # makes /tmp/paper_fc.json and /tmp/paper_gt.json if missing

Groundtruth memory is the ceiling, so the comparison must flag a gain with an interval above 0 (and, run the
other way round, a significant drop that the regression gate fails on). Prints both outputs, the time each
comparison took and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(memory: str, report: Path) -> None:
    if report.exists():
        return
    print(f"{report} missing: running the paper suite with {memory} memory (about a minute) ...", flush=True)
    subprocess.run([sys.executable, "-m", "pytest", "suites/paper", "-n", "2", "-q", "-p", "no:cacheprovider",
                    "--vita-memory", memory, "--vita-report", str(report)], cwd=ROOT, stdout=subprocess.DEVNULL,
                   check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="/tmp/paper_fc.json", help="full_context run")
    parser.add_argument("--new", default="/tmp/paper_gt.json", help="groundtruth run")
    args = parser.parse_args()
    base, new = Path(args.base), Path(args.new)
    _run("full_context", base)
    _run("groundtruth", new)
    from pytest_vitabench.commands.cli import main as vitabench
    from pytest_vitabench.report.compare import compare_runs
    from pytest_vitabench.runs.reader import load_run

    print(f"$ vitabench compare {base} {new} --limit 5        (load {os.getloadavg()[0]:.2f})")
    start = time.perf_counter()
    vitabench(["compare", str(base), str(new), "--limit", "5", "--viewer", new.with_suffix(".html").name])
    print(f"[{time.perf_counter() - start:.1f} s]\n")
    print(f"$ vitabench compare {new} {base} --fail-regression 0.05 --limit 3")
    status = vitabench(["compare", str(new), str(base), "--fail-regression", "0.05", "--limit", "3"])
    print(f"[exit status {status}]\n")
    comparison = compare_runs(load_run(base), load_run(new))
    direction_ok = comparison.ci95 is not None and comparison.ci95[0] > 0 and comparison.significant_gain
    print(f"expected direction (groundtruth better, interval above 0): {'yes' if direction_ok else 'NO'}; "
          f"gate on the reverse comparison failed: {'yes' if status == 1 else 'NO'}   load: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0 if direction_ok and status == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
