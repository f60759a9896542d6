"""``vitabench merge``: the shards of a run (or any pieces of it) as the one report a one-process run writes.

The metrics are computed from the merged items exactly as the controller computes a run's (same k, same
seed, items in node-id order), and the gates exit as a run's do; a gate on a merge missing items exits 6.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .command import Command, argument, run_config, setting_arguments
from .fail_under import parse_fail_under
from .llm.ledger import Ledger
from .metrics import compute_metrics
from .report.exit_policy import GateInputs, explain, gated_exit_status
from .report.github import error_annotations, step_summary, write_step_summary
from .report.json_report import build_report, write_report
from .report.run_analysis import analyse_session, suite_subtask_data, summary_lines
from .report.terminal import render_table
from .report.thresholds import check_thresholds, gate_metrics
from .runs.manifest import now_iso
from .runs.pieces import MergeError, combine
from .settings import run_scoped
from .suite.loader import load_suite
from .version import __version__

#: ``vitabench merge``'s exit status when the pieces cannot be merged (pytest's usage-error code).
BAD_INPUT = 4


def merge_command(args: argparse.Namespace) -> int:
    """Merge the pieces into the report ``--output``, print its table, gate it (exit statuses: the
    command's description)."""
    output = args.output
    try:
        config = run_config(args)  # --vita-fail-regression needs --vita-baseline, as in a run
        thresholds = parse_fail_under(config.fail_under) if config.fail_under else None
        baseline, fail_regression = config.baseline, config.fail_regression
        combined = combine(args.pieces, ignored_settings=run_scoped())
    except (MergeError, ValueError) as exc:
        print(f"vitabench merge: {exc}", file=sys.stderr)
        return BAD_INPUT
    outcome = _score(combined, thresholds, baseline=baseline, fail_regression=fail_regression)
    report = _report(combined, outcome, output)
    write_report(output, report)
    for line in _summary_lines(combined, outcome, output):
        print(line)
    _github(combined, outcome)
    return outcome["status"]


def _score(combined: Any, thresholds: Any, *, baseline: str | None, fail_regression: float | None) -> dict[str, Any]:
    """Metrics, failures, comparison and gates of the merged items (the blocks a run's controller uses)."""
    config, results = combined.config, combined.results
    trials, seed = int(config.get("trials") or 1), int(config.get("seed") or 0)
    metrics = compute_metrics(results, k=trials, seed=seed)
    outcomes: list[Any] = []
    if thresholds is not None:
        checked, _ = gate_metrics(results, metrics, trials=trials, seed=seed)
        outcomes = check_thresholds(thresholds, checked, results)
    analysis = analyse_session(results, config, want_failures=True,
                               subtask_data=suite_subtask_data(load_suite),
                               baseline=baseline, max_drop=fail_regression, seed=seed,
                               ignored_settings=run_scoped())
    gate_failures = [f"regression against the baseline: {analysis.regression}"] if analysis.regression else []
    missed = tuple(o.message for o in outcomes if o.status == "missed")
    errors = sum(1 for r in results if r.outcome == "error")
    missing = max(0, (combined.planned or 0) - len(results))
    gated = thresholds is not None or fail_regression is not None
    status, verdict = 0, None
    if gated:
        # Missing items leave the scores as incomplete as errored ones do.
        found = GateInputs(missed_thresholds=missed, gate_failures=tuple(gate_failures),
                           infrastructure_errors=errors + missing + (1 if combined.missing and not missing else 0))
        status = gated_exit_status(0, found)
        verdict = explain(status, found)
    return {"metrics": metrics, "outcomes": outcomes, "missed": missed, "analysis": analysis, "status": status,
            "verdict": verdict, "gate_failures": gate_failures}


def _report(combined: Any, outcome: dict[str, Any], output: str) -> dict[str, Any]:
    stores = combined.stores
    run = {"id": combined.run_id, "dir": str(stores[0].path.resolve()) if len(stores) == 1 else None,
           "dirs": [str(s.path.resolve()) for s in stores], "merged_from": combined.pieces, "finished": now_iso(),
           "plugin_version": __version__, "planned": combined.planned, "completed": len(combined.results),
           "resumed": sum(1 for r in combined.results if r.resumed), "partial": combined.partial,
           "missing": combined.missing}
    config = {**combined.config, "report": output, "shard": "merged"}
    report = build_report(config, outcome["metrics"], combined.results, run=run)
    if combined.usage is not None:
        report["usage"] = combined.usage
    analysis = outcome["analysis"]
    report["failures"] = analysis.failures
    if analysis.comparison is not None:
        report["comparison"] = analysis.comparison.to_dict()
    return report


def _summary_lines(combined: Any, outcome: dict[str, Any], output: str) -> list[str]:
    lines = [f"vitabench merge: {len(combined.pieces)} piece(s) of run {combined.run_id}, "
             f"{len(combined.results)} items"]
    if combined.partial:
        planned = f" of {combined.planned} planned" if combined.planned is not None else ""
        lines.append(f"partial: {len(combined.results)}{planned} items; " + "; ".join(combined.missing or
                     ["items missing from the pieces (a shard stopped early; rerun it with --vita-resume)"]))
    lines += combined.notes
    lines += render_table(outcome["metrics"], combined.results)
    if combined.usage:
        ledger = Ledger()
        ledger.merge(combined.usage)
        lines += ledger.table_lines()
    lines += summary_lines(outcome["analysis"], show_failures=False)
    for threshold in outcome["outcomes"]:
        if threshold.status == "not_checked":
            lines.append(f"fail-under: {threshold.message}")
    lines += [f"FAIL-UNDER: {message}" for message in outcome["missed"]]
    lines += [f"REGRESSION: {outcome['analysis'].regression}"] if outcome["analysis"].regression else []
    lines.append(f"JSON report: {output}")
    if outcome["verdict"]:
        lines.append(outcome["verdict"])
    return lines


def _github(combined: Any, outcome: dict[str, Any]) -> None:
    """``$GITHUB_STEP_SUMMARY`` and error annotations, as a run writes them."""
    if os.environ.get("GITHUB_ACTIONS") == "true" and outcome["verdict"]:
        errors = sum(1 for r in combined.results if r.outcome == "error")
        for line in error_annotations(outcome["missed"], outcome["gate_failures"], errors):
            print(line)
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    regressions = list(outcome["analysis"].regressions or []) if outcome["analysis"].comparison is not None else None
    markdown = step_summary(outcome["metrics"], combined.results, title="VitaBench results (merged shards)",
                            config=combined.config, thresholds=outcome["outcomes"] or None,
                            regressions=regressions, verdict=outcome["verdict"])
    try:
        write_step_summary(Path(path), markdown)
    except OSError as exc:
        print(f"vitabench merge: could not write GITHUB_STEP_SUMMARY {path}: {exc}", file=sys.stderr)


COMMAND = Command(
    "merge", help="join the shards of a run (--vita-shard) into one report, gated like a run",
    description="Join the pieces of one run (the run directories of its --vita-shard shards, a directory holding "
                "them, or their --vita-report files) into the report the run would have written in one process: "
                "the same metrics, intervals, failures, usage and cost. Pieces whose settings or suite files "
                "differ are refused (the differences are listed); missing shards or items make the merge "
                "partial. Exit status: 0 merged (and every gate passed), 1 a gate failed, 4 the pieces cannot be "
                "merged, 6 a gate met infrastructure errors or missing items.",
    run=merge_command, arguments=(
        argument("pieces", nargs="+", metavar="RUN_DIR_OR_REPORT",
                 help="run directories (.vitabench/runs/RUN_ID/shard-I-of-N), directories holding them, or JSON "
                      "reports"),
        argument("-o", "--output", required=True, help="where to write the merged JSON report"),
        *setting_arguments(
            "fail_under", "baseline", "fail_regression",
            fail_under={"metavar": "SPEC", "help": "thresholds as for a run, e.g. 'avg@4=0.40,pass^4=0.20': the exit "
                                                   "status is the gate's"},
            baseline={"metavar": "RUN",
                      "help": "a saved run to compare the merged run with, paired per user and subtask"},
            fail_regression={"metavar": "DELTA", "help": "with --vita-baseline: exit 1 when Avg drops significantly "
                                                         "by more than DELTA"}),
    ))
