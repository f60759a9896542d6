"""``vitabench compare``: two saved runs paired per subtask, the regressed and fixed ones, an optional gate."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..report.compare import compare_runs, regression_gate, render_comparison
from ..runs.reader import load_run
from .command import Command, argument


def compare_command(args: argparse.Namespace) -> int:
    """``vitabench compare``: paired comparison of two runs, regressed and fixed subtasks; exit status 0, 1 on
    a regression beyond ``--fail-regression``, 2 when a run cannot be read."""
    fail_regression = args.fail_regression
    try:
        base, new = load_run(args.base), load_run(args.new)
        comparison = compare_runs(base, new, base_memory=args.base_memory, new_memory=args.new_memory,
                                  seed=args.seed)
    except (OSError, ValueError) as exc:
        print(f"vitabench compare: {exc}", file=sys.stderr)
        return 2
    for line in render_comparison(comparison, base_label=args.base, new_label=args.new, viewer=args.viewer or "",
                                  limit=args.limit):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(comparison.to_dict(), indent=1), encoding="utf-8")
    if fail_regression is not None:
        reason = regression_gate(comparison, fail_regression)
        if reason:
            print(f"REGRESSION: {reason}")
            return 1
        print(f"regression gate passed (allowed drop {fail_regression})")
    return 0


COMMAND = Command(
    "compare", help="paired comparison of two runs; regressed and fixed subtasks",
    description="Compare two runs paired per (user, subtask): the change of each metric with its bootstrap "
                "interval, and the subtasks that regressed or were fixed.",
    run=compare_command,
    arguments=(
        argument("base", help="the baseline run (a --vita-report JSON file or a run directory)"),
        argument("new", help="the new run (a --vita-report JSON file or a run directory)"),
        argument("--base-memory", help="compare this backend of BASE ..."),
        argument("--new-memory", help="... with this backend of NEW"),
        argument("--fail-regression", type=float, metavar="DELTA",
                 help="exit 1 when Avg drops significantly by more than DELTA"),
        argument("--viewer", help="prefix of the links to each subtask, e.g. new.html"),
        argument("--json", help="also write the comparison as JSON here"),
        argument("--limit", type=int, default=20, help="subtasks listed per direction (default: 20)"),
        argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)"),
    ))
