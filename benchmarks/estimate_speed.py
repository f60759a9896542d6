"""How long ``vitabench estimate`` takes on the paper suite, in CPU seconds of its process.

    python benchmarks/estimate_speed.py                      # 3 runs, medians
    python benchmarks/estimate_speed.py --repeat 5 --expect saved-output.txt

One warm-up run first (it writes the suite's index under ``.vitabench/cache``, as a user's first run or
collection does), then ``--repeat`` runs of ``vitabench estimate suites/paper/tasks.vita.json.gz --vita-model
gpt-4.1`` (784 subtasks, 12 items each). CPU is the child's user + system time from ``wait4``. ``--expect``
compares every run's output with a saved one (the figures must not move).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"


def run_once(command: list[str]) -> tuple[float, float, int, str]:
    """(CPU seconds, wall seconds, peak RSS in MB, standard output) of one estimate."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"estimate failed ({status}): {' '.join(command)}")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started, usage.ru_maxrss // 1024, output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--expect", type=Path, help="a saved output every run must equal")
    args = parser.parse_args()
    command = [sys.executable, "-m", "pytest_vitabench.commands.cli", "estimate", str(SUITE.relative_to(REPO)),
               "--vita-model", "gpt-4.1"]
    run_once(command)  # the suite's index
    expected = args.expect.read_text() if args.expect else None
    rows = []
    for _ in range(args.repeat):
        cpu, wall, rss, output = run_once(command)
        same = "" if expected is None else (", output as expected" if output == expected else ", OUTPUT DIFFERS")
        print(f"  CPU {cpu:.2f} s, wall {wall:.2f} s, peak RSS {rss} MB{same}", flush=True)
        rows.append((cpu, wall, rss))
        if expected is not None and output != expected:
            return 1
    cpu, wall, rss = (statistics.median(column) for column in zip(*rows, strict=True))
    print(f"vitabench estimate {SUITE.relative_to(REPO)} --vita-model gpt-4.1: median of {args.repeat} runs: "
          f"CPU {cpu:.2f} s, wall {wall:.2f} s, peak RSS {rss:.0f} MB (load average at the end "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
