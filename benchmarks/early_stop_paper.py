"""Exact early stopping on the paper suite, as real pytest runs: items run before the decision, at several
thresholds, and the decision compared with the full run's.

    python benchmarks/early_stop_paper.py                      # -n 2, thresholds around the full run's Avg@4
    python benchmarks/early_stop_paper.py --thresholds 0.5,0.7 --workers 0

The agent is the offline ``reference`` built-in (scripted user, rules judge, full_context memory): a stub of
known pass rate, the one the full run measures. The full run is made once, without a gate; each threshold then
runs ``--vita-fail-under avg@4=T --vita-early-stop exact`` and its verdict (exit status 0 or 1, and the
report's ``run.early_stop``) is compared with the full run's figure against T. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"


def _pytest(args: list[str], report: Path, cwd: Path) -> tuple[int, dict, float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", SUITE.name, "-q", "-p", "no:cacheprovider",
                           "--vita-memory", "full_context", "--vita-report", str(report), *args],
                           cwd=cwd, capture_output=True, text=True)
    wall = time.monotonic() - started
    if not report.exists():
        sys.exit(f"no report from pytest {' '.join(args)}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done.returncode, json.loads(report.read_text()), wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--thresholds", default="0.5,0.6,0.65,0.69,0.72,0.75,0.8",
                        help="comma-separated Avg@4 thresholds (default: around the reference agent's 0.707)")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (0: one process)")
    args = parser.parse_args()
    workers = ["-n", str(args.workers)] if args.workers else []
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / SUITE.name).write_bytes(SUITE.read_bytes())  # a suite under the rootdir, as a project keeps it
        (cwd / "pytest.ini").write_text("[pytest]\n")
        _, full, full_wall = _pytest(workers, cwd / "full.json", cwd)
        figure = full["metrics"]["full_context"]["subtask"]["avg@4"]
        items = len(full["results"])
        print(f"full run: {items} items, subtask Avg@4 {figure:.4f}, {full_wall:.1f} s wall")
        print(f"{'gate':>13}  {'full run':>8}  {'early':>6}  {'decided after':>15}  {'items run':>10}  "
              f"{'wall s':>6}  same")
        same_all = True
        for text in args.thresholds.split(","):
            threshold = float(text)
            expected = "met" if figure >= threshold else "missed"
            status, early, wall = _pytest([*workers, "--vita-fail-under", f"avg@4={threshold:g}",
                                           "--vita-early-stop", "exact"], cwd / f"t{text}.json", cwd)
            stop = early["run"].get("early_stop")
            verdict = {0: "met", 1: "missed"}.get(status, f"exit {status}")
            same = verdict == expected and (stop is None or stop["passes"] == (expected == "met"))
            same_all &= same
            decided = f"{stop['decided_after']} of {stop['selected']}" if stop else "not decided"
            ran = len(early["results"])
            print(f"{'avg@4=' + text:>13}  {expected:>8}  {verdict:>6}  {decided:>15}  {ran / items:>9.0%}  "
                  f"{wall:>6.1f}  {'yes' if same else 'NO'}")
    print("every early verdict equals the full run's" if same_all else "SOME EARLY VERDICT DIFFERS")
    return 0 if same_all else 1


if __name__ == "__main__":
    sys.exit(main())
