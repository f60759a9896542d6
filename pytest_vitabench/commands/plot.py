"""``vitabench plot``: the paper's figures of a saved run as PNG, SVG or PDF files."""

from __future__ import annotations

import argparse
import sys

from ..report.plots import plot_data, render_plots
from ..runs.reader import load_run
from .command import Command, argument


def plot_command(args: argparse.Namespace) -> int:
    """``vitabench plot``: the paper's figures of a run, one file per figure and format; exit status 0, or 2
    for an unreadable run, an unknown format or missing matplotlib."""
    try:
        run = load_run(args.run)
    except (OSError, ValueError) as exc:
        print(f"vitabench plot: {exc}", file=sys.stderr)
        return 2
    wanted = [f.strip() for f in args.format.split(",") if f.strip()]
    bad = [f for f in wanted if f not in ("png", "svg", "pdf")]
    if bad or not wanted:
        print(f"vitabench plot: unknown format(s) {bad or wanted}; use png, svg or pdf", file=sys.stderr)
        return 2
    try:
        written = render_plots(plot_data(run.results, run.report.get("metrics") or {}), args.output, wanted)
    except ImportError:
        print("vitabench plot: needs matplotlib: pip install 'pytest-vitabench[plot]'", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


COMMAND = Command(
    "plot", help="the paper's figures of a run as PNG/SVG files (needs matplotlib)",
    description="Draw the paper's figures of a run as PNG, SVG or PDF files (needs matplotlib: pip install "
                "'pytest-vitabench[plot]').",
    run=plot_command,
    arguments=(
        argument("run", help="a --vita-report JSON file (or a run directory)"),
        argument("-o", "--output", default="vitabench-plots", help="output directory (default: vitabench-plots)"),
        argument("--format", default="png,svg", help="comma-separated: png, svg, pdf (default: png,svg)"),
    ))
