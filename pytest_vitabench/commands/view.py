"""``vitabench show``, ``vitabench view``, ``vitabench plot`` and ``vitabench compare``: look at saved runs and
compare them.

Every command reads runs through :mod:`pytest_vitabench.runs.reader` only.
"""

from __future__ import annotations

import argparse
import json
import sys
import webbrowser
from pathlib import Path
from typing import Any

from ..report.compare import compare_runs, regression_gate, render_comparison
from ..report.failures import analyse_run
from ..report.plots import plot_data, render_plots
from ..report.terminal import render_table
from ..result import ItemResult
from ..runs.reader import Run, load_report, load_run
from ..view.catalogue import load_catalogue
from ..view.html import build_viewer
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
    for line in render_table(report["metrics"], results):
        print(line)
    return 0


def _catalogue(run: Run, suite_dirs: list[str] | None) -> Any:
    dirs: list[str | Path] = [*(suite_dirs or []), run.path.parent]
    # Reports written under xdist before suite hashes were recorded there name their suites only per item.
    suites = run.config.get("suites") or {str(r["suite"]): "" for r in run.results if r.get("suite")}
    return load_catalogue(suites, search_dirs=dirs)


def render_run_page(run: Run, *, suite_dirs: list[str] | None = None, baseline: Run | None = None) -> str:
    """The viewer page of a run with its metrics table, plots, failure table and (optional) comparison."""
    catalogue = _catalogue(run, suite_dirs)
    metrics = run.report.get("metrics") or {}
    results = [ItemResult.model_validate(r) for r in run.results]
    comparison = None
    if baseline is not None:
        comparison = compare_runs(baseline, run).to_dict()
    return build_viewer(run, catalogue=catalogue, metrics_lines=render_table(metrics, results),
                        plots=plot_data(run.results, metrics), failures=analyse_run(run, catalogue),
                        comparison=comparison, judge=run.report.get("judge"),
                        judge_audit=run.report.get("judge_audit"))


def view_command(args: argparse.Namespace) -> int:
    """``vitabench view``: write the run's self-contained HTML page and open it; exit status 0, or 2 when a
    run cannot be read."""
    output = args.output
    try:
        run = load_run(args.run)
        base = load_run(args.baseline) if args.baseline else None
        page = render_run_page(run, suite_dirs=args.suite_dir, baseline=base)
    except (OSError, ValueError) as exc:
        print(f"vitabench view: {exc}", file=sys.stderr)
        return 2
    out = Path(output) if output else run.path.with_suffix(".html")
    out.write_text(page, encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    if not output and not args.no_open:
        if not webbrowser.open(out.resolve().as_uri()):
            print("no browser found; open the file yourself")
    return 0


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


SHOW = Command(
    "show", help="print the metrics table of a --vita-report JSON file",
    description="Print the metrics table of a saved --vita-report JSON file.", run=show_command,
    arguments=(argument("report", help="the JSON report written by pytest --vita-report PATH"),))

VIEW = Command(
    "view", help="write a self-contained HTML viewer of a run and open it",
    description="Write a run as one self-contained HTML page and open it in a browser.",
    run=view_command,
    arguments=(
        argument("run", help="a --vita-report JSON file (or a run directory)"),
        argument("-o", "--output", help="write the page here and do not open it (default: RUN.html, opened)"),
        argument("--suite-dir", action="append",
                 help="where to find the run's suite files when they moved (for product and store names)"),
        argument("--baseline", help="a saved run to compare with (adds a Compare tab)"),
        argument("--no-open", action="store_true", help="do not open a browser"),
    ))

PLOT = Command(
    "plot", help="the paper's figures of a run as PNG/SVG files (needs matplotlib)",
    description="Draw the paper's figures of a run as PNG, SVG or PDF files (needs matplotlib: pip install "
                "'pytest-vitabench[plot]').",
    run=plot_command,
    arguments=(
        argument("run", help="a --vita-report JSON file (or a run directory)"),
        argument("-o", "--output", default="vitabench-plots", help="output directory (default: vitabench-plots)"),
        argument("--format", default="png,svg", help="comma-separated: png, svg, pdf (default: png,svg)"),
    ))

COMPARE = Command(
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
