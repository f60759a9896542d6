"""``--vita-fail-under``: check a run's metrics against its thresholds (:mod:`pytest_vitabench.options.fail_under`
parses them).

How K meets the run's k (the trials selected per unit) is in ``docs/ci.md``: ``avg`` does not depend on K, so
``avg@4`` checks the table's Avg@k and says so when k is not 4; a pass@K / pass^K below the run's k is recomputed
from the same trials, above it *not checked*. A ``judge.*`` gate on a run with no
machine-checked rubric misses: a gate on the judge must not pass because nothing measured it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..formulas import METRIC_BY_NAME, metric_key
from ..metrics import compute_metrics
from ..options.fail_under import Threshold
from .agreement import judge_summary

if TYPE_CHECKING:
    from ..result import ItemResult

# Metrics are means of floats; without a little slack a run scoring exactly the threshold could fail on
# the last bit of a sum.
_EPS = 1e-9


def _fmt(value: float, other: float) -> str:
    text = f"{value:.3f}"
    # "0.400 < 0.400" would read as nonsense, so show the digits that make the difference visible.
    return text if text != f"{other:.3f}" else f"{value:.6g}"


@dataclass(frozen=True)
class ThresholdOutcome:
    """One threshold checked against one backend (``None`` when there was nothing to check it against):
    ``status`` ``met``, ``missed`` or ``not_checked``, and a ``message`` for the terminal and the step summary."""

    threshold: Threshold
    memory: str | None
    status: str
    value: float | None
    k: int | None
    message: str
    #: Set when the figure checked is not the one the threshold names (``avg@4`` checked as the table's Avg@1).
    note: str | None = None


def _value_at(memory: str, t: Threshold, metrics: dict[str, Any], results: Sequence[ItemResult] | None
              ) -> tuple[float | None, int | None, str | None]:
    """``(value, K, why not)`` of ``t`` on ``memory``: the run's own value, or recomputed at a smaller K."""
    m = metrics[memory]
    run_k = int(m["k"])
    k = run_k if t.k is None or not METRIC_BY_NAME[t.metric].needs_k else t.k
    if k == run_k:
        return m[t.level].get(metric_key(t.metric, run_k)), run_k, None
    if k > run_k:
        return None, k, (f"threshold {t} not checked: {metric_key(t.metric, k)} needs {k} trials per subtask, "
                         f"this run has k={run_k} (trials selected per unit) ({memory})")
    if results is None:
        return None, k, f"threshold {t} not checked: the run has k={run_k} and no results to recompute at k={k}"
    own = [r for r in results if r.memory == memory]
    level = compute_metrics(own, k=k, bootstrap=0).get(memory, {}).get(t.level, {})
    return level.get(metric_key(t.metric, k)), k, None


def check_thresholds(thresholds: list[Threshold], metrics: dict[str, Any],
                     results: Sequence[ItemResult] | None = None) -> list[ThresholdOutcome]:
    """Check every threshold on every backend it applies to (all of the run's, without a backend named).

    It is *missed* when the value is below it and also when it cannot be checked for a reason a gate must
    not pass over (a backend not in the run, a level without units, no metrics at all); *not checked* (not
    failing the run) only when it names a K above the run's k. ``results`` are the run's items, to
    recompute pass@K / pass^K at a K below the run's k.

    Returns:
        One outcome per (threshold, backend).
    """
    outcomes: list[ThresholdOutcome] = []
    for t in thresholds:
        if t.level == "judge":
            outcomes.append(_check_judge(t, results or []))
            continue
        if t.memory is not None:
            if t.memory not in metrics:
                run = ", ".join(sorted(metrics)) or "none"
                outcomes.append(ThresholdOutcome(t, None, "missed", None, t.k, (
                    f"threshold {t}: memory backend {t.memory!r} is not in this run (backends: {run})")))
                continue
            memories = [t.memory]
        else:
            memories = sorted(metrics)
            if not memories:
                outcomes.append(ThresholdOutcome(t, None, "missed", None, t.k,
                                                 f"threshold {t}: no results to check it against"))
                continue
        for memory in memories:
            value, k, why_not = _value_at(memory, t, metrics, results)
            shown = metric_key(t.metric, k) if k is not None else t.key
            if why_not is not None:
                outcomes.append(ThresholdOutcome(t, memory, "not_checked", None, k, why_not))
            elif value is None:
                outcomes.append(ThresholdOutcome(t, memory, "missed", None, k,
                                                 f"{memory} {t.level} {shown} has no units to check (threshold {t})"))
            else:
                note = None
                if t.k is not None and k is not None and t.k != k:
                    # avg@4 on a one-trial selection: the mean reward is checked, and the line must not hide that
                    # it is the table's Avg@1, not an Avg@4.
                    note = (f"checked as {shown}, the table's figure: {t.key} was written, this run has k={k} "
                            "(trials selected per unit; a mean reward does not depend on k)")
                outcome = _against(t, memory, value, k, f"{memory} {t.level} {shown} = {_fmt(value, t.value)}")
                outcomes.append(outcome if note is None else
                                ThresholdOutcome(t, memory, outcome.status, value, k, f"{outcome.message}; {note}",
                                                 note))
    return outcomes


def _check_judge(t: Threshold, results: Sequence[ItemResult]) -> ThresholdOutcome:
    own = [r for r in results if t.memory is None or r.memory == t.memory]
    summary = judge_summary(own, bootstrap=0)
    scope = f" ({t.memory})" if t.memory else ""
    if summary is None or not summary["n"]:
        return ThresholdOutcome(t, t.memory, "missed", None, None, (
            f"threshold {t}: no machine-checked rubric of this run{scope} was judged by an LLM judge, so the judge's "
            "agreement with the rules judge is unknown (run an LLM judge on a suite with rubric_checks)"))
    value = summary[t.metric]
    if value is None:
        return ThresholdOutcome(t, t.memory, "missed", None, None,
                                f"threshold {t}: {t.key} is undefined{scope} (every verdict the same on both sides)")
    return _against(t, t.memory, value, None, f"{t.key}{scope} = {_fmt(value, t.value)} over {summary['n']} rubrics")


def _against(t: Threshold, memory: str | None, value: float, k: int | None, shown: str) -> ThresholdOutcome:
    """``value`` checked against the threshold; ``shown`` says what was measured."""
    if value < t.value - _EPS:
        return ThresholdOutcome(t, memory, "missed", value, k, f"{shown} < {t.value:.3f}")
    return ThresholdOutcome(t, memory, "met", value, k, f"{shown} >= {t.value:.3f}")
