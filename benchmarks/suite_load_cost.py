"""What the suite integrity checks cost: load a suite with and without them, alternating, and print both.

    python benchmarks/suite_load_cost.py                                  # the paper-scale suite, 3 rounds
    python benchmarks/suite_load_cost.py suites/demo/tasks.json --rounds 10

"Without" replaces the checks of ``suite/integrity.py`` with no-ops and parses JSON without the duplicate-key
hook, i.e. the loader as it was before them. Figures are wall-clock medians; note the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pytest_vitabench.suite import integrity
from pytest_vitabench.suite.loader import load_suite

CHECKS = ("check_json_values", "check_node_ids", "check_profile", "check_subtask_content", "check_domain_entities",
          "check_environment_values")


@contextmanager
def checks_off():
    saved = {name: getattr(integrity, name) for name in (*CHECKS, "parse_suite_json")}
    for name in CHECKS:
        setattr(integrity, name, lambda *args, **kwargs: None)
    integrity.parse_suite_json = lambda raw, path: json.loads(raw)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(integrity, name, value)


def _time(path: Path) -> float:
    started = time.perf_counter()
    suite: Any = load_suite(path)
    elapsed = time.perf_counter() - started
    assert all(user.task is not None for user in suite.users), "the suite must load cleanly"
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("suite", nargs="?", default="suites/paper/tasks.vita.json.gz")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    path = Path(args.suite)
    on, off = [], []
    for _ in range(args.rounds):
        on.append(_time(path))
        with checks_off():
            off.append(_time(path))
    with_checks, without = statistics.median(on), statistics.median(off)
    print(f"suite_load_cost: {path} ({path.stat().st_size:,} bytes), {args.rounds} rounds, "
          f"load {os.getloadavg()[0]:.2f}")
    print(f"  load with integrity checks    {with_checks:8.2f} s (median)")
    print(f"  load without them             {without:8.2f} s (median)")
    print(f"  overhead                      {with_checks - without:8.2f} s ({with_checks / without - 1:+.0%})")


if __name__ == "__main__":
    main()
