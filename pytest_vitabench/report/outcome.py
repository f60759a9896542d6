"""A run's scores, gates and reports from its results: one piece of code for the controller at the end of a
pytest session and for ``vitabench merge``, so that a run's report and a merge's report are made alike.

The metrics take K = the run's trials whatever ran (a partial run does not shrink K), with the run's seed and
style; the gates exit as ``docs/ci.md`` says.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fail_under import Threshold
from ..llm.ledger import Ledger
from ..metrics import compute_metrics
from ..result import ItemResult
from ..settings import run_scoped
from .exit_policy import GateInputs, explain, gated_exit_status
from .github import error_annotations, step_summary, write_step_summary
from .json_report import build_report
from .run_analysis import SessionAnalysis, analyse_session
from .run_analysis import summary_lines as analysis_lines
from .terminal import render_table
from .thresholds import ThresholdOutcome, check_thresholds, gate_metrics

#: A terminal line and its colour (``None``: plain, ``"red"``, ``"green"``, ``"yellow"``, ``"bold"``).
Line = tuple[str, str | None]


@dataclass
class RunOutcome:
    """What the end of a run found: its metrics, the thresholds checked, the analysis and the gate's verdict.

    Attributes:
        gate_k: The k the thresholds were checked at (fewer than ``trials`` when fewer trials ran).
        status: The exit status (the gate's when a gate is on, else the one given to :func:`gate_run`).
        scope: The shard the run is, when it is one (its gate saw a part of the run).
    """

    results: list[ItemResult]
    metrics: dict[str, Any]
    trials: int
    thresholds: list[Threshold] | None = None
    threshold_outcomes: list[ThresholdOutcome] = field(default_factory=list)
    gate_k: int | None = None
    analysis: SessionAnalysis | None = None
    baseline: str | None = None
    fail_regression: float | None = None
    found: GateInputs | None = None
    verdict: str | None = None
    status: int = 0
    scope: str | None = None

    @property
    def missed(self) -> tuple[str, ...]:
        return tuple(o.message for o in self.threshold_outcomes if o.status == "missed")

    @property
    def gate_failures(self) -> tuple[str, ...]:
        regression = self.analysis.regression if self.analysis is not None else None
        return (f"regression against the baseline: {regression}",) if regression else ()


def score_run(results: list[ItemResult], *, trials: int, seed: int, style: str = "default",
              thresholds: list[Threshold] | None = None, analyse: bool = True, want_failures: bool = True,
              config: dict[str, Any] | None = None,
              subtask_data: Callable[[ItemResult], dict[str, Any] | None] = lambda _: None,
              baseline: str | None = None, fail_regression: float | None = None) -> RunOutcome:
    """The metrics, threshold outcomes and analysis (failures, baseline comparison) of a run's results.

    Args:
        results: Every item's result, in node-id order.
        analyse: Classify failures and compare with ``baseline`` (the report and the terminal show them).
        config: The report's config block, compared with the baseline's.
        subtask_data: An item's subtask as suite data, for failure analysis.
    """
    metrics = compute_metrics(results, k=trials, seed=seed, style=style, trials=trials)
    outcome = RunOutcome(results=results, metrics=metrics, trials=trials, thresholds=thresholds,
                         baseline=baseline, fail_regression=fail_regression)
    if thresholds is not None:
        checked, outcome.gate_k = gate_metrics(results, metrics, trials=trials, seed=seed)
        outcome.threshold_outcomes = check_thresholds(thresholds, checked, results)
    if analyse:
        outcome.analysis = analyse_session(results, config or {}, want_failures=want_failures,
                                           subtask_data=subtask_data, baseline=baseline,
                                           max_drop=fail_regression, seed=seed, ignored_settings=run_scoped())
    return outcome


def gate_run(outcome: RunOutcome, *, status: int = 0, unfinished: int = 0, other_failures: int = 0,
             scope: str | None = None) -> int:
    """Decide the exit status when a gate is on (thresholds or the regression gate); ``status`` otherwise.

    Args:
        status: The exit status without the gate (pytest's).
        unfinished: Items missing from the run, counted as infrastructure errors (the scores are incomplete).
        other_failures: Failed tests that are not VitaBench items.
        scope: The shard's label, when the run is one shard.
    """
    outcome.status, outcome.scope = status, scope
    if outcome.thresholds is None and outcome.fail_regression is None:
        return status
    errors = sum(1 for r in outcome.results if r.outcome == "error")
    outcome.found = GateInputs(missed_thresholds=outcome.missed, gate_failures=outcome.gate_failures,
                               infrastructure_errors=errors + unfinished, other_failures=other_failures)
    outcome.status = gated_exit_status(status, outcome.found)
    outcome.verdict = explain(outcome.status, outcome.found)
    if scope is not None:  # a shard's gate saw a part of the run, and must say so
        outcome.verdict = (f"{scope}: {outcome.verdict} (this shard's items only; gate the run with "
                           "`vitabench merge ... --vita-fail-under`)")
    return outcome.status


def run_report(outcome: RunOutcome, config: dict[str, Any], *, run: dict[str, Any], usage: dict[str, Any] | None,
               records: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON report of the run: :func:`~.json_report.build_report` with the usage, failures and comparison."""
    report = build_report(config, outcome.metrics, outcome.results, run=run, records=records)
    if usage is not None:
        report["usage"] = usage
    if outcome.analysis is not None:
        report["failures"] = outcome.analysis.failures
        if outcome.analysis.comparison is not None:
            report["comparison"] = outcome.analysis.comparison.to_dict()
    return report


def summary_lines(outcome: RunOutcome, *, ledger: Ledger | None, show_failures: bool,
                  report: str | None) -> list[Line]:
    """The terminal summary after the run's own first lines: the metrics table, the usage, the analysis,
    where the report went, the thresholds and the gate's verdict."""
    lines: list[Line] = [(line, None) for line in render_table(outcome.metrics, outcome.results)]
    if ledger is not None and (ledger.total().requests or ledger.total().cached_requests):
        lines += [(line, None) for line in ledger.table_lines()]
    analysis = outcome.analysis
    if analysis is not None:
        lines += [(line, None) for line in analysis_lines(analysis, show_failures=show_failures)]
        if analysis.regression:
            lines.append((f"REGRESSION: {analysis.regression}", "red"))
        elif outcome.fail_regression is not None:
            lines.append((f"regression gate passed (allowed drop {outcome.fail_regression})", "green"))
    if report:
        lines.append((f"JSON report: {report}", None))
    if outcome.thresholds is not None:
        if outcome.gate_k is not None and outcome.gate_k < outcome.trials:
            lines.append((f"fail-under: checked at k={outcome.gate_k}, the trials this run executed (the table "
                          f"keeps k={outcome.trials})", "yellow"))
        lines += [(f"fail-under: {o.message}", "yellow") for o in outcome.threshold_outcomes
                  if o.status == "not_checked"]
        scope = f" ({outcome.scope})" if outcome.scope is not None else ""
        lines += [(f"FAIL-UNDER{scope}: {message}", "red") for message in outcome.missed]
        if not outcome.missed:
            lines.append(("fail-under thresholds met", "green"))
    if outcome.verdict:
        lines.append((outcome.verdict, "bold"))
    return lines


def github_outputs(outcome: RunOutcome, *, config: dict[str, Any], echo: Callable[[str], None],
                   warn: Callable[[str], None], title: str = "VitaBench results") -> None:
    """Under GitHub Actions, the gate's ``::error`` annotations (through ``echo``) and, with
    ``$GITHUB_STEP_SUMMARY`` set, the markdown job summary (``warn`` says why it could not be written)."""
    if os.environ.get("GITHUB_ACTIONS") == "true" and outcome.found is not None:
        found = outcome.found
        for line in error_annotations(found.missed_thresholds, found.gate_failures, found.infrastructure_errors):
            echo(line)
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    regressions: Sequence[str] | None = None
    if outcome.baseline and outcome.analysis is not None:
        regressions = list(outcome.analysis.regressions or [])
    markdown = step_summary(outcome.metrics, outcome.results, title=title, config=config,
                            thresholds=outcome.threshold_outcomes or None, regressions=regressions,
                            verdict=outcome.verdict)
    try:
        write_step_summary(Path(path), markdown)
    except OSError as exc:
        warn(f"could not write GITHUB_STEP_SUMMARY {path}: {exc}")
