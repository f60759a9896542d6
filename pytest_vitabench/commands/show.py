"""``vitabench show``: print the metrics table of a saved report."""

from __future__ import annotations

import argparse
import sys

from ..report.terminal import render_table
from ..result import ItemResult
from ..runs.reader import load_report
from .command import Command, argument


def show_command(args: argparse.Namespace) -> int:
    """``vitabench show``: print the metrics table of a saved report; exit status 0, or 2 when the report
    cannot be read."""
    try:
        report = load_report(args.report)
    except (OSError, ValueError) as exc:
        print(f"vitabench show: {exc}", file=sys.stderr)
        return 2
    results = [ItemResult.model_validate(r) for r in report.get("results", [])]
    trials = (report.get("config") or {}).get("trials")
    for line in render_table(report["metrics"], results, trials=int(trials) if trials else None):
        print(line)
    return 0


COMMAND = Command(
    "show", help="print the metrics table of a --vita-report JSON file",
    description="Print the metrics table of a saved --vita-report JSON file.", run=show_command,
    arguments=(argument("report", help="the JSON report written by pytest --vita-report PATH"),))
