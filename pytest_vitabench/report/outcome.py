"""A run's scores, analysis, gates and reports from its results: one piece of code for the controller at the
end of a pytest session and for ``vitabench merge``, so that a run's report and a merge's report are made alike.

The metrics take K = the trials the session selected per unit (all of ``--vita-trials`` unless ``-k``, node ids,
``--lf``... left some out), with the run's seed and style; a selected trial that did not finish does not shrink K
(it counts as the style says, and is named). Gates check the figures the table shows. With a gate on, the exit
status says what the gate found, not whether single items failed (a benchmark run always has failed items);
infrastructure errors (6) win over a missed gate (1), because the scores are incomplete (``docs/ci.md`` has the
table).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from pathlib import Path
from typing import Any

from ..llm.ledger import Ledger
from ..metrics import compute_metrics, pads_missing_trials
from ..options.fail_under import Threshold
from ..result import ItemResult
from ..runs.reader import load_run
from .compare import Comparison, compare_results, regression_gate, regression_list, render_comparison
from .failures import SubtaskFacts, categorize_result, failure_table, render_failure_table, subtask_facts
from .github import error_annotations, step_summary, write_step_summary
from .json_report import build_report
from .selection import SHOWN, metrics_k, unfinished_line
from .terminal import render_table
from .thresholds import ThresholdOutcome, check_thresholds

#: A terminal line and its colour (``None``: plain, ``"red"``, ``"green"``, ``"yellow"``, ``"bold"``).
Line = tuple[str, str | None]


class VitaExit(IntEnum):
    """Exit statuses of a gated run (pytest's own values where they mean the same)."""

    OK = 0
    GATE_FAILED = 1
    INTERRUPTED = 2
    INTERNAL_ERROR = 3
    USAGE_ERROR = 4
    NO_TESTS_COLLECTED = 5
    INFRASTRUCTURE = 6
    #: ``--vita-budget-usd`` stopped the run from starting items: the scores cover part of the selection.
    BUDGET = 7


#: The reason of the items a spend cap left out (the only not-run reason that makes the exit status 7).
BUDGET_REASON = "budget"


@dataclass(frozen=True)
class GateInputs:
    """What the gate found in a run.

    Attributes:
        missed_thresholds: Messages of the ``--vita-fail-under`` thresholds that were missed.
        gate_failures: Messages of other gates that failed (e.g. a regression against a baseline).
        infrastructure_errors: Items whose outcome is ``error`` (or missing from a merge).
        other_failures: Failed or errored tests that are not VitaBench items, in the same session.
    """

    missed_thresholds: tuple[str, ...] = ()
    gate_failures: tuple[str, ...] = ()
    infrastructure_errors: int = 0
    other_failures: int = 0


def gated_exit_status(pytest_status: int, found: GateInputs) -> int:
    """The exit status of a run with a gate on, given the status pytest would return on its own."""
    if pytest_status in (VitaExit.INTERRUPTED, VitaExit.INTERNAL_ERROR, VitaExit.USAGE_ERROR,
                         VitaExit.NO_TESTS_COLLECTED):
        return int(pytest_status)
    if found.infrastructure_errors:
        return int(VitaExit.INFRASTRUCTURE)
    if found.missed_thresholds or found.gate_failures or found.other_failures:
        return int(VitaExit.GATE_FAILED)
    return int(VitaExit.OK)


def explain(status: int, found: GateInputs) -> str:
    """One line saying why the run exits with ``status``, for the terminal and the step summary."""
    if status == VitaExit.INFRASTRUCTURE:
        return (f"exit status 6 (infrastructure errors): {found.infrastructure_errors} item(s) ended in an "
                "infrastructure error, so the scores are incomplete; fix the endpoint and rerun")
    if status == VitaExit.GATE_FAILED:
        parts = []
        if found.missed_thresholds:
            parts.append(f"{len(found.missed_thresholds)} threshold(s) missed")
        if found.gate_failures:
            parts.append(f"{len(found.gate_failures)} gate failure(s)")
        if found.other_failures:
            parts.append(f"{found.other_failures} non-VitaBench test failure(s)")
        return f"exit status 1 (gate failed): {', '.join(parts)}"
    if status == VitaExit.OK:
        return "exit status 0: every gate passed (failed items do not fail a gated run)"
    return f"exit status {status} (pytest's)"


@dataclass
class RunOutcome:
    """What the end of a run found: its metrics, the thresholds checked, the failure table, the comparison
    with a baseline and the gate's verdict.

    Attributes:
        trials: ``--vita-trials``; ``k``: the metrics' k, the trials selected per unit (at most ``trials``).
        unfinished: The selected items without a result (stopped or interrupted), by node id.
        regression: Why the regression gate fails the run; ``regressions``: the regressed subtasks as plain
            lines for a CI step summary.
        status: The exit status (the gate's when a gate is on, else the one given to :func:`gate_run`).
        scope: The shard the run is, when it is one (its gate saw a part of the run).
        not_run: The selected items the run never started, with the reason (``budget``...), by node id: they
            are among ``unfinished``, named apart.
    """

    results: list[ItemResult]
    metrics: dict[str, Any]
    trials: int
    k: int = 0
    unfinished: list[str] = field(default_factory=list)
    style: str = "default"
    thresholds: list[Threshold] | None = None
    threshold_outcomes: list[ThresholdOutcome] = field(default_factory=list)
    failures: dict[str, Any] | None = None
    baseline: str | None = None
    comparison: Comparison | None = None
    comparison_error: str | None = None
    fail_regression: float | None = None
    regression: str | None = None
    regressions: list[str] = field(default_factory=list)
    found: GateInputs | None = None
    verdict: str | None = None
    status: int = 0
    scope: str | None = None
    not_run: dict[str, str] = field(default_factory=dict)
    #: ``--vita-early-stop``'s decision, when it stopped the run: the gate's verdict is its, not the partial
    #: figures' (:class:`~pytest_vitabench.report.early_stop.Decision`).
    decision: Any = None

    @property
    def stopped_by_budget(self) -> int:
        """How many items the spend cap left out."""
        return sum(1 for reason in self.not_run.values() if reason == BUDGET_REASON)

    @property
    def missed(self) -> tuple[str, ...]:
        return tuple(o.message for o in self.threshold_outcomes if o.status == "missed")


def score_run(results: list[ItemResult], *, trials: int, seed: int, style: str = "default",
              selected_k: int | None = None, unfinished: Sequence[str] = (),
              thresholds: list[Threshold] | None = None, want_failures: bool = True,
              config: dict[str, Any] | None = None,
              subtask_data: Callable[[ItemResult], dict[str, Any] | None] = lambda _: None,
              baseline: str | None = None, fail_regression: float | None = None,
              not_run: Mapping[str, str] | None = None) -> RunOutcome:
    """The metrics, threshold outcomes, failure table and baseline comparison of a run's results.

    Args:
        results: Every item's result, in node-id order.
        selected_k: The fewest trials the session selected for any unit (:mod:`.selection`); ``None``: all of
            ``trials``.
        unfinished: The selected items without a result.
        want_failures: Classify the failed items (the report and ``--vita-failures`` show them).
        config: The report's config block, compared with the baseline's.
        subtask_data: An item's subtask as suite data, for failure analysis.
        fail_regression: The drop of Avg against ``baseline`` the regression gate allows (``None``: no gate).
        not_run: The selected items never started, with the reason; they are no trials of the measurement.
    """
    # Trials nobody selected are no part of the measurement: K is what was selected, and a metrics style that
    # pads missing trials with 0.0 pads to K. A selected trial that did not finish still counts against K.
    k = metrics_k(selected_k, trials)
    not_run = dict(not_run or {})
    metrics = compute_metrics(results, k=k, seed=seed, style=style, trials=k, not_run=sorted(not_run))
    outcome = RunOutcome(results=results, metrics=metrics, trials=trials, k=k, unfinished=sorted(unfinished),
                         style=style, thresholds=thresholds, baseline=baseline, fail_regression=fail_regression,
                         not_run=not_run)
    if thresholds is not None:
        # The gate reads the table's own figures, so what it says and what the table shows never disagree.
        outcome.threshold_outcomes = check_thresholds(thresholds, metrics, results)
    if want_failures:
        outcome.failures = _failure_table(results, subtask_data)
    if baseline:
        try:
            base = load_run(baseline)
            current = [r.model_dump(mode="json", exclude={"messages", "memory_snapshot"}) for r in results]
            outcome.comparison = compare_results(base.results, current, base_config=base.config,
                                                 new_config=config or {}, seed=seed)
        except (OSError, ValueError) as exc:
            outcome.comparison_error = f"cannot compare with the baseline {baseline}: {exc}"
            if fail_regression is not None:
                outcome.regression = outcome.comparison_error
            return outcome
        outcome.regressions = regression_list(outcome.comparison)
        if fail_regression is not None:
            outcome.regression = regression_gate(outcome.comparison, fail_regression)
    return outcome


def _failure_table(results: Sequence[ItemResult],
                   subtask_data: Callable[[ItemResult], dict[str, Any] | None]) -> dict[str, Any]:
    """:func:`~.failures.failure_table` of the run's failed and errored items."""
    cache: dict[tuple[str, str, str], SubtaskFacts] = {}
    rows = []
    for r in results:
        if r.outcome not in ("failed", "error"):
            continue
        # Decided on the worker, next to the trajectory, when it ran there (the controller has none).
        category = r.failure_category
        if not category:
            key = (r.suite, r.user_id, r.subtask_id)
            if key not in cache:
                cache[key] = subtask_facts(subtask_data(r))
            category = categorize_result(r, cache[key])
        if category:
            rows.append((r.nodeid, category, r.domain, r.memory))
    return failure_table(rows)


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
        if outcome.stopped_by_budget and status not in _PYTEST_OWN:
            outcome.status = int(VitaExit.BUDGET)
            outcome.verdict = _budget_verdict(outcome.stopped_by_budget)
        return outcome.status
    if outcome.decision is not None:
        _decided_gates(outcome)
    errors = sum(1 for r in outcome.results if r.outcome == "error")
    gate_failures = (f"regression against the baseline: {outcome.regression}",) if outcome.regression else ()
    outcome.found = GateInputs(missed_thresholds=outcome.missed, gate_failures=gate_failures,
                               infrastructure_errors=errors + unfinished, other_failures=other_failures)
    outcome.status = gated_exit_status(status, outcome.found)
    outcome.verdict = explain(outcome.status, outcome.found)
    if outcome.stopped_by_budget and outcome.status in (VitaExit.OK, VitaExit.GATE_FAILED):
        # The gate read part of the selection: neither its pass nor its failure is the run's verdict.
        outcome.status = int(VitaExit.BUDGET)
        outcome.verdict = _budget_verdict(outcome.stopped_by_budget)
    not_checked = sum(1 for o in outcome.threshold_outcomes if o.status == "not_checked")
    if not_checked:  # a threshold the run could not check passed nothing: the verdict must not read as if it did
        outcome.verdict += f"; {not_checked} threshold(s) not checked"
    if outcome.decision is not None:
        outcome.verdict = (f"decided after {outcome.decision.run} of {outcome.decision.total} items "
                           f"(--vita-early-stop): {outcome.verdict}")
    if scope is not None:  # a shard's gate saw a part of the run, and must say so
        outcome.verdict = (f"{scope}: {outcome.verdict} (this shard's items only; gate the run with "
                           "`vitabench merge ... --vita-fail-under`)")
    return outcome.status


def _decided_gates(outcome: RunOutcome) -> None:
    """Each gate as early stopping decided it: what every outcome of the items not run gives (the partial run's
    figures may read otherwise: a unit left short is not scored)."""
    decision = outcome.decision
    statuses = {(gate, memory): status for gate, memory, status in decision.verdict}
    bounds = {(bound.gate, bound.memory): bound for bound in decision.bounds}
    left = decision.total - decision.run
    decided = []
    for o in outcome.threshold_outcomes:
        key = (str(o.threshold), o.memory)
        status = statuses.get(key, o.status)
        bound = bounds.get(key)
        span = (f"between {bound.low:.3f} and {bound.high:.3f}" if bound is not None and bound.low is not None
                and bound.high is not None else "its figure")
        where = f"{o.memory} " if o.memory else ""
        decided.append(replace(o, status=status, message=f"{where}{o.threshold}: {status}, whatever the {left} "
                                                          f"items not run do ({span})"))
    outcome.threshold_outcomes = decided
    regression = statuses.get(("regression", None))
    if regression == "passed":
        outcome.regression = None
    elif regression == "failed" and not outcome.regression:
        outcome.regression = f"fails whatever the {left} items not run do"


#: pytest's own statuses, which pass through whatever the run found.
_PYTEST_OWN = (VitaExit.INTERRUPTED, VitaExit.INTERNAL_ERROR, VitaExit.USAGE_ERROR, VitaExit.NO_TESTS_COLLECTED)


def _budget_verdict(count: int) -> str:
    return (f"exit status 7 (stopped by its budget): {count} item(s) not run: budget, so the scores cover part of "
            "the selection; --vita-resume (with a higher --vita-budget-usd, or none) completes the run")


def not_run_line(not_run: Mapping[str, str], *, padded: bool = False) -> str:
    """The terminal's line naming the items the run never started, by reason (``padded``: the metrics style
    counts each missing trial as a 0.0 reward)."""
    reasons: dict[str, list[str]] = {}
    for nodeid in sorted(not_run):
        reasons.setdefault(not_run[nodeid], []).append(nodeid)
    parts = []
    for reason, ids in sorted(reasons.items()):
        shown = ", ".join(ids[:SHOWN]) + (f", ... and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")
        parts.append(f"{len(ids)} item(s) not run: {reason} ({shown})")
    counts = ("each counts as a 0.0 reward, as the metrics style pads missing trials" if padded
              else "a unit they leave short is left out of the metrics, not scored 0")
    return "; ".join(parts) + f"; neither passed nor failed: {counts}"


def run_report(outcome: RunOutcome, config: dict[str, Any], *, run: dict[str, Any], usage: dict[str, Any] | None,
               records: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The JSON report of the run: :func:`~.json_report.build_report` with the usage, failures and comparison."""
    report = build_report(config, outcome.metrics, outcome.results, run=run, records=records)
    if outcome.not_run:  # items never started: no result row (neither passed nor failed), named here
        report["not_run"] = [{"nodeid": nodeid, "outcome": "not_run", "reason": reason}
                             for nodeid, reason in sorted(outcome.not_run.items())]
    if usage is not None:
        report["usage"] = usage
    if outcome.failures is not None:
        report["failures"] = outcome.failures
    if outcome.comparison is not None:
        report["comparison"] = outcome.comparison.to_dict()
    return report


def summary_lines(outcome: RunOutcome, *, ledger: Ledger | None, show_failures: bool,
                  report: str | None) -> list[Line]:
    """The terminal summary after the run's own first lines: the metrics table, the usage, the analysis,
    where the report went, the thresholds and the gate's verdict."""
    lines: list[Line] = [(line, None) for line in render_table(outcome.metrics, outcome.results,
                                                               trials=outcome.trials)]
    if outcome.not_run:
        lines.append((not_run_line(outcome.not_run, padded=pads_missing_trials(outcome.style)), "yellow"))
    unfinished = [nodeid for nodeid in outcome.unfinished if nodeid not in outcome.not_run]
    if unfinished:
        lines.append((unfinished_line(unfinished, k=outcome.k, style=outcome.style,
                                      padded=pads_missing_trials(outcome.style)), "yellow"))
    if ledger is not None and (ledger.total().requests or ledger.total().cached_requests):
        lines += [(line, None) for line in ledger.table_lines()]
    analysis = ["", *render_failure_table(outcome.failures)] if show_failures and outcome.failures is not None else []
    if outcome.comparison_error:
        analysis += ["", outcome.comparison_error]
    elif outcome.comparison is not None:
        analysis += ["", *render_comparison(outcome.comparison, base_label=outcome.baseline or "baseline",
                                            new_label="this run", limit=10)]
    lines += [(line, None) for line in analysis]
    if outcome.regression:
        lines.append((f"REGRESSION: {outcome.regression}", "red"))
    elif outcome.fail_regression is not None:
        lines.append((f"regression gate passed (allowed drop {outcome.fail_regression})", "green"))
    if report:
        lines.append((f"JSON report: {report}", None))
    if outcome.thresholds is not None:
        not_checked = [o for o in outcome.threshold_outcomes if o.status == "not_checked"]
        lines += [(f"fail-under: {o.message}", "yellow") for o in outcome.threshold_outcomes
                  if o.status == "not_checked" or (o.status == "met" and o.note)]
        scope = f" ({outcome.scope})" if outcome.scope is not None else ""
        lines += [(f"FAIL-UNDER{scope}: {message}", "red") for message in outcome.missed]
        if not outcome.missed:
            met = len(outcome.threshold_outcomes) - len(not_checked)
            lines.append(("fail-under thresholds met" + (
                f": {met} of {len(outcome.threshold_outcomes)} ({len(not_checked)} not checked, said above)"
                if not_checked else ""), "green"))
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
    markdown = step_summary(outcome.metrics, outcome.results, title=title, config=config,
                            thresholds=outcome.threshold_outcomes or None,
                            regressions=list(outcome.regressions) if outcome.baseline else None,
                            verdict=outcome.verdict)
    try:
        write_step_summary(Path(path), markdown)
    except OSError as exc:
        warn(f"could not write GITHUB_STEP_SUMMARY {path}: {exc}")


def complete_suite_hashes(known: dict[str, str], results: Sequence[ItemResult]) -> dict[str, str]:
    """Suite path -> sha256 for every suite the results came from.

    Under xdist only workers collect, so the controller has not hashed any suite; the viewer and the
    comparison need the paths (for names) and the hashes (to tell changed suites apart).
    """
    out = dict(known)
    for path in sorted({r.suite for r in results if r.suite} - set(known)):
        try:
            out[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            continue
    return dict(sorted(out.items()))
