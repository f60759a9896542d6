"""Exact early stopping of a gate: whether any outcome of the items not yet run could change its verdict.

The run's gate is evaluated on two completed result lists: every pending item failed with reward 0 (the worst
completion) and every pending item passed with reward 1 (the best). Every metric a gate reads is a mean of unit
values that never decrease when a reward rises (Avg@k, Pass@k, Pass^k, at both levels, in both styles), so the
full run's value lies between the two; a threshold met at the worst completion is met by every completion, and
one missed at the best is missed by every one. An item that ends in an infrastructure error scores 0, as a
failure does; an item the judge cannot judge leaves its unit out, and a mean of fewer units stays between the
two values.

The regression gate fails on a significant drop: the bootstrap interval's upper end below 0, the exact
McNemar ``p`` below 0.05 and the drop above the allowed one. The interval and the change never decrease when a
new reward rises. ``p`` is not monotone, but its extremes over the completions are at the two completions
(pass-to-fail counts grow and fail-to-pass counts shrink together as rewards fall), unless the discordant
counts can balance, when ``p`` can reach 1. ``docs/statistics.md`` states this for users.

An item known to be skipped (a subtask without criteria) is taken as skipped. Were it to end in an infrastructure
error instead, the full run would exit 6 whatever its gate says, and so would any run with an error in an item
that early stopping did not run: the decision is about the gate's verdict, which errors never change otherwise.

An item an LLM judge leaves *unscored* (a verdict it failed to return) leaves its unit, or a trial of it, out;
a unit's figure without one of its trials lies between the figures with that trial failed and passed, so this
stays between the two values as well, as long as a level keeps some unit (the regression gate assumes every
pending item is scored: a unit left out changes the users its bootstrap draws). A ``judge.*`` threshold depends on
rubrics not yet judged: a gate with one is decided only when every item has run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..metrics import compute_metrics
from ..options.fail_under import Threshold
from ..result import ItemResult
from .compare import Comparison, compare_results, regression_gate
from .outcome import RunOutcome
from .selection import metrics_k
from .thresholds import ThresholdOutcome, check_thresholds


@dataclass(frozen=True)
class Pending:
    """An item not yet run: the fields of its result that do not depend on how it ends.

    Attributes:
        skip: Known before it runs: why the judge cannot judge it (the ``error`` of its skipped result, e.g. a
            subtask without criteria); ``None`` for an item that will be scored.
    """

    nodeid: str
    user_id: str
    subtask_id: str
    memory: str
    trial: int
    suite: str = ""
    subtask_index: int = 0
    domain: str = ""
    skills: tuple[str, ...] = ()
    seed: int = 0
    skip: str | None = None

    @classmethod
    def of(cls, result: ItemResult) -> Pending:
        """The pending item ``result`` was (tests and simulations replay a finished run)."""
        return cls(nodeid=result.nodeid, user_id=result.user_id, subtask_id=result.subtask_id, memory=result.memory,
                   trial=result.trial, suite=result.suite, subtask_index=result.subtask_index, domain=result.domain,
                   skills=tuple(result.skills), seed=result.seed)

    def ended(self, reward: float) -> ItemResult:
        """Its result had it ended with ``reward`` (skipped, whatever the reward, when :attr:`skip` says so)."""
        if self.skip is not None:
            outcome, error = "skipped", self.skip
        else:
            outcome, error = ("passed" if reward == 1.0 else "failed"), None
        return ItemResult(nodeid=self.nodeid, suite=self.suite, user_id=self.user_id, subtask_id=self.subtask_id,
                          subtask_index=self.subtask_index, domain=self.domain, skills=list(self.skills),
                          memory=self.memory, trial=self.trial, seed=self.seed, reward=reward,
                          outcome=outcome, error=error)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Gates:
    """A run's gates as the decision reads them: what :func:`~.outcome.score_run` is given.

    Attributes:
        selected_k: The fewest trials the session selected for any unit (``Selection.k``); ``None``: ``trials``.
        thresholds: ``--vita-fail-under`` (``None``: none).
        baseline: The baseline run's item records (``Run.results``), with ``--vita-fail-regression``.
        baseline_config: The baseline run's config (the comparison lists the settings that differ).
        baseline_error: Why the baseline could not be read: the regression gate then fails whatever runs.
        fail_regression: The allowed drop of Avg (``None``: no regression gate).
    """

    trials: int
    seed: int = 0
    style: str = "default"
    selected_k: int | None = None
    thresholds: tuple[Threshold, ...] | None = None
    baseline: tuple[Mapping[str, Any], ...] | None = None
    baseline_config: Mapping[str, Any] = field(default_factory=dict)
    baseline_error: str | None = None
    fail_regression: float | None = None

    @property
    def any(self) -> bool:
        return self.thresholds is not None or self.fail_regression is not None

    @property
    def k(self) -> int:
        """The metrics' k, which the gate reads (:func:`~.selection.metrics_k`)."""
        return metrics_k(self.selected_k, self.trials)

    @property
    def judge_gated(self) -> bool:
        return any(t.level == "judge" for t in self.thresholds or ())


#: One gate's verdict: ``(what, memory, status)``, e.g. ``("avg@4=0.5", "none", "met")`` or
#: ``("regression", None, "passed")``.
GateVerdict = tuple[str, str | None, str]


@dataclass(frozen=True)
class Bound:
    """One gate's figure at the worst and the best completion (``None``: not a number there)."""

    gate: str
    memory: str | None
    low: float | None
    high: float | None
    status_low: str
    status_high: str

    @property
    def decided(self) -> bool:
        return self.status_low == self.status_high


@dataclass(frozen=True)
class Decision:
    """Whether the gate's verdict is settled.

    Attributes:
        decided: No outcome of the pending items could change the verdict.
        verdict: The verdict every completion gives (``None`` while undecided).
        passes: Whether that verdict passes the gate (``None`` while undecided).
        run: Items with a result; ``total``: items selected.
        bounds: Each gate's figure at the worst and the best completion, for progress lines.
        reason: Why not decided yet (or what decided it), one line.
    """

    decided: bool
    verdict: tuple[GateVerdict, ...] | None
    passes: bool | None
    run: int
    total: int
    bounds: tuple[Bound, ...] = ()
    reason: str = ""


def completed(done: Sequence[ItemResult], pending: Sequence[Pending], reward: float) -> list[ItemResult]:
    """The run's results had every pending item ended with ``reward``."""
    return [*done, *(p.ended(reward) for p in pending)]


def _records(results: Sequence[ItemResult]) -> list[dict[str, Any]]:
    """What :func:`~.compare.compare_results` reads of each item, without serialising the whole result."""
    return [{"nodeid": r.nodeid, "user_id": r.user_id, "subtask_id": r.subtask_id, "memory": r.memory,
             "trial": r.trial, "reward": r.reward, "outcome": r.outcome, "domain": r.domain} for r in results]


def _comparison(results: Sequence[ItemResult], gates: Gates) -> Comparison | str:
    """The comparison the run's regression gate reads, or why it cannot be made (the gate then fails)."""
    if gates.baseline_error is not None or gates.baseline is None:
        return gates.baseline_error or "no baseline"
    try:
        return compare_results(list(gates.baseline), _records(results), base_config=gates.baseline_config,
                               new_config={}, seed=gates.seed)
    except ValueError as exc:
        return f"cannot compare with the baseline: {exc}"


def threshold_outcomes(results: Sequence[ItemResult], gates: Gates) -> list[ThresholdOutcome]:
    """The thresholds checked as :func:`~.outcome.score_run` checks them: on the table's figures at the
    selection's k (without the intervals, which no threshold reads)."""
    k = gates.k
    metrics = compute_metrics(results, k=k, seed=gates.seed, style=gates.style, trials=k, bootstrap=0)
    return check_thresholds(list(gates.thresholds or ()), metrics, results)


def gate_verdict(results: Sequence[ItemResult], gates: Gates) -> tuple[GateVerdict, ...]:
    """The gate's verdict on a complete run: each threshold on each backend, then the regression gate."""
    out: list[GateVerdict] = []
    if gates.thresholds is not None:
        out += [(str(o.threshold), o.memory, o.status) for o in threshold_outcomes(results, gates)]
    if gates.fail_regression is not None:
        comparison = _comparison(results, gates)
        failed = isinstance(comparison, str) or regression_gate(comparison, gates.fail_regression) is not None
        out.append(("regression", None, "failed" if failed else "passed"))
    return tuple(out)


def verdict_of(outcome: RunOutcome) -> tuple[GateVerdict, ...]:
    """The verdict :func:`~.outcome.score_run` found, in :func:`gate_verdict`'s shape (to compare the two)."""
    out: list[GateVerdict] = [(str(o.threshold), o.memory, o.status) for o in outcome.threshold_outcomes]
    if outcome.fail_regression is not None:
        out.append(("regression", None, "failed" if outcome.regression else "passed"))
    return tuple(out)


def passes(verdict: Sequence[GateVerdict]) -> bool:
    """Whether a verdict passes the gate (a threshold not checked does not fail it)."""
    return all(status in ("met", "not_checked", "passed") for _, _, status in verdict)


def _threshold_bounds(worst: list[ItemResult], best: list[ItemResult], gates: Gates) -> list[Bound]:
    low, high = threshold_outcomes(worst, gates), threshold_outcomes(best, gates)
    # Both lists hold the same items, so the outcomes come in the same (threshold, backend) order.
    return [Bound(str(lo.threshold), lo.memory, lo.value, hi.value, lo.status, hi.status)
            for lo, hi in zip(low, high, strict=True)]


def _discordance(comparison: Comparison) -> int:
    """The sign of pass-to-fail minus fail-to-pass trials."""
    b, c = comparison.discordant["pass_to_fail"], comparison.discordant["fail_to_pass"]
    return (b > c) - (b < c)


def regression_bound(worst: list[ItemResult], best: list[ItemResult], gates: Gates) -> Bound:
    """The regression gate at the two completions; decided only when every completion agrees (module doc)."""
    assert gates.fail_regression is not None
    low, high = _comparison(worst, gates), _comparison(best, gates)
    if isinstance(low, str) or isinstance(high, str):
        # No comparison fails the gate; both lists hold the same items, so one without the other is not expected.
        settled = isinstance(low, str) and isinstance(high, str)
        return Bound("regression", None, None, None, "failed", "failed" if settled else "passed")
    drop = gates.fail_regression
    # The interval's upper end and the change are lowest at the worst completion: if the drop is not
    # significant there by them, it is nowhere.
    interval_clears = (low.ci95 is None or low.delta is None or low.ci95[1] >= 0 or -low.delta <= drop)
    # p's least value over the completions is at one of the two.
    p_clears = (low.p_value is not None and high.p_value is not None
                and min(low.p_value, high.p_value) >= 0.05)
    if interval_clears or p_clears:
        status_low = status_high = "passed"
    else:
        fails_low = regression_gate(low, drop) is not None
        fails_high = regression_gate(high, drop) is not None
        # p's greatest value is at one of the two too, unless the discordant counts can balance (p = 1 there).
        same_side = _discordance(low) == _discordance(high) != 0
        if fails_low and fails_high and same_side:
            status_low = status_high = "failed"
        else:
            status_low, status_high = "failed", "passed"
    return Bound("regression", None, low.delta, high.delta, status_low, status_high)


def exact_decision(done: Sequence[ItemResult], pending: Sequence[Pending], gates: Gates) -> Decision:
    """Whether any outcome of the ``pending`` items could change the gate's verdict on ``done`` plus them.

    Args:
        done: The results so far (any order), the resumed ones included.
        pending: The selected items without a result yet.
        gates: The run's gates.

    Returns:
        The decision; when decided, ``verdict`` equals the verdict of the full run, whatever its items do
        (passed, failed at any reward, infrastructure error), by construction (module doc).
    """
    total = len(done) + len(pending)
    if not gates.any:
        return Decision(False, None, None, len(done), total, reason="no gate to decide")
    if not pending:
        verdict = gate_verdict(done, gates)
        return Decision(True, verdict, passes(verdict), len(done), total, reason="every item has run")
    if gates.judge_gated:
        return Decision(False, None, None, len(done), total,
                        reason="a judge.* threshold is decided only when every item has run")
    worst, best = completed(done, pending, 0.0), completed(done, pending, 1.0)
    bounds: list[Bound] = []
    if gates.thresholds is not None:
        bounds += _threshold_bounds(worst, best, gates)
    if gates.fail_regression is not None:
        bounds.append(regression_bound(worst, best, gates))
    open_gates = [b for b in bounds if not b.decided]
    if open_gates:
        names = ", ".join(f"{b.gate}" + (f" ({b.memory})" if b.memory else "") for b in open_gates)
        return Decision(False, None, None, len(done), total, tuple(bounds), reason=f"undecided: {names}")
    verdict = tuple((b.gate, b.memory, b.status_low) for b in bounds)
    return Decision(True, verdict, passes(verdict), len(done), total, tuple(bounds),
                    reason=f"decided after {len(done)} of {total} items")

