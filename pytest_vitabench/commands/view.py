"""``vitabench view``: a saved run as one self-contained HTML page, opened in a browser.

The run is read through :mod:`pytest_vitabench.runs.reader` only.
"""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path
from typing import Any

from ..metrics import pads_missing_trials
from ..report.compare import compare_runs
from ..report.failures import analyse_run
from ..report.outcome import not_run_line
from ..report.plots import plot_data
from ..report.terminal import render_table
from ..result import ItemResult
from ..runs.reader import Run, load_run
from ..view.catalogue import load_catalogue
from ..view.html import build_viewer
from .command import Command, argument


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
    trials = (run.report.get("config") or {}).get("trials")
    lines = render_table(metrics, results, trials=int(trials) if trials else None)  # a selection's k, as the run said
    not_run = {entry["nodeid"]: entry["reason"] for entry in run.report.get("not_run") or []}
    if not_run:  # items the run never started (its spend cap): named under the table, as the terminal does
        style = str(run.config.get("metrics_style") or "default")
        lines.append(not_run_line(not_run, padded=pads_missing_trials(style)))
    return build_viewer(run, catalogue=catalogue, metrics_lines=lines,
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


COMMAND = Command(
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
