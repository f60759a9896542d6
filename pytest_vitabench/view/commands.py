"""``vitabench view``, ``vitabench plot`` and ``vitabench compare``: argument parsing and output.

Every command reads runs through :func:`~pytest_vitabench.view.source.load_run` only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .source import Run, load_run


def _catalogue(run: Run, suite_dirs: list[str] | None) -> Any:
    from .catalogue import load_catalogue

    dirs: list[str | Path] = [*(suite_dirs or []), run.path.parent]
    # Reports written under xdist before suite hashes were recorded there name their suites only per item.
    suites = run.config.get("suites") or {str(r["suite"]): "" for r in run.results if r.get("suite")}
    return load_catalogue(suites, search_dirs=dirs)


def render_run_page(run: Run, *, suite_dirs: list[str] | None = None, baseline: Run | None = None) -> str:
    """The viewer page of a run with its metrics table, plots, failure table and (optional) comparison."""
    from ..report.compare import compare_runs
    from ..report.failures import analyse_run
    from ..report.plots import plot_data
    from ..report.terminal import render_table
    from ..result import ItemResult
    from .html import build_viewer

    catalogue = _catalogue(run, suite_dirs)
    metrics = run.report.get("metrics") or {}
    results = [ItemResult.model_validate(r) for r in run.results]
    comparison = None
    if baseline is not None:
        comparison = compare_runs(baseline, run).to_dict()
    return build_viewer(run, catalogue=catalogue, metrics_lines=render_table(metrics, results),
                        plots=plot_data(run.results, metrics), failures=analyse_run(run, catalogue),
                        comparison=comparison)


def _view(args: argparse.Namespace) -> int:
    try:
        run = load_run(args.run)
        baseline = load_run(args.baseline) if args.baseline else None
        page = render_run_page(run, suite_dirs=args.suite_dir, baseline=baseline)
    except (OSError, ValueError) as exc:
        print(f"vitabench view: {exc}", file=sys.stderr)
        return 2
    out = Path(args.output) if args.output else run.path.with_suffix(".html")
    out.write_text(page, encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    if not args.output and not args.no_open:
        import webbrowser

        if not webbrowser.open(out.resolve().as_uri()):
            print("no browser found; open the file yourself")
    return 0


def _plot(args: argparse.Namespace) -> int:
    from ..report.plots import plot_data, render_plots

    try:
        run = load_run(args.run)
    except (OSError, ValueError) as exc:
        print(f"vitabench plot: {exc}", file=sys.stderr)
        return 2
    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad or not formats:
        print(f"vitabench plot: unknown format(s) {bad or formats}; use png, svg or pdf", file=sys.stderr)
        return 2
    try:
        written = render_plots(plot_data(run.results, run.report.get("metrics") or {}), args.output, formats)
    except ImportError:
        print("vitabench plot: needs matplotlib: pip install 'pytest-vitabench[plot]'", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


def _compare(args: argparse.Namespace) -> int:
    from ..report.compare import compare_runs, regression_gate, render_comparison

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
    if args.fail_regression is not None:
        reason = regression_gate(comparison, args.fail_regression)
        if reason:
            print(f"REGRESSION: {reason}")
            return 1
        print(f"regression gate passed (allowed drop {args.fail_regression})")
    return 0


def add_view_parsers(commands: Any) -> None:
    """Add ``view``, ``plot`` and ``compare`` to the ``vitabench`` command."""
    view = commands.add_parser("view", help="write a self-contained HTML viewer of a run and open it")
    view.add_argument("run", help="a --vita-report JSON file (or a run directory)")
    view.add_argument("-o", "--output", help="write the page here and do not open it (default: RUN.html, opened)")
    view.add_argument("--suite-dir", action="append",
                      help="where to find the run's suite files when they moved (for product and store names)")
    view.add_argument("--baseline", help="a saved run to compare with (adds a Compare tab)")
    view.add_argument("--no-open", action="store_true", help="do not open a browser")
    view.set_defaults(func=_view)
    plot = commands.add_parser("plot", help="the paper's figures of a run as PNG/SVG files (needs matplotlib)")
    plot.add_argument("run")
    plot.add_argument("-o", "--output", default="vitabench-plots", help="output directory (default: vitabench-plots)")
    plot.add_argument("--format", default="png,svg", help="comma-separated: png, svg, pdf (default: png,svg)")
    plot.set_defaults(func=_plot)
    compare = commands.add_parser("compare", help="paired comparison of two runs; regressed and fixed subtasks")
    compare.add_argument("base")
    compare.add_argument("new")
    compare.add_argument("--base-memory", help="compare this backend of BASE ...")
    compare.add_argument("--new-memory", help="... with this backend of NEW")
    compare.add_argument("--fail-regression", type=float, metavar="DELTA",
                         help="exit 1 when Avg drops significantly by more than DELTA")
    compare.add_argument("--viewer", help="prefix of the links to each subtask, e.g. new.html")
    compare.add_argument("--json", help="also write the comparison as JSON here")
    compare.add_argument("--limit", type=int, default=20, help="subtasks listed per direction (default: 20)")
    compare.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    compare.set_defaults(func=_compare)
