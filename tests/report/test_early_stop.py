"""Exact early stopping: a decision taken before the last item equals the full run's verdict, whatever the
pending items do. Small suites are enumerated exhaustively (every set of finished items, every outcome of
them and of the rest); random suites are checked against the real ``score_run``."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_vitabench.judges.base import NO_CRITERIA
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.options.fail_under import parse_fail_under
from pytest_vitabench.report.early_stop import (
    Gates,
    Pending,
    exact_decision,
    gate_verdict,
    passes,
    verdict_of,
)
from pytest_vitabench.report.json_report import build_report
from pytest_vitabench.report.outcome import score_run
from pytest_vitabench.result import ItemResult

ERROR = -1.0  # an infrastructure error, in the outcome vectors below


def plan(subtasks: Sequence[int], trials: int, memories: Sequence[str] = ("none",)) -> list[Pending]:
    """The items of users with ``subtasks[u]`` subtasks each, in collection order."""
    out = []
    for u, count in enumerate(subtasks):
        for index in range(count):
            for memory in memories:
                for trial in range(trials):
                    out.append(Pending(nodeid=f"s.json::u{u}::st{index}[{memory}-t{trial}]", user_id=f"u{u}",
                                       subtask_id=f"st{index}", subtask_index=index, memory=memory, trial=trial,
                                       suite="s.json", domain=("delivery", "ota")[index % 2]))
    return out


def ended(item: Pending, value: float) -> ItemResult:
    if value == ERROR and item.skip is None:  # a subtask without criteria is skipped, whatever the agent did
        result = item.ended(0.0)
        result.outcome, result.error = "error", "endpoint down"
        return result
    return item.ended(value)


def check_exhaustively(items: list[Pending], gates: Gates, values: Sequence[float],
                       orders: Sequence[Sequence[int]] | None = None) -> tuple[int, int]:
    """Every (finished subset, outcomes) state: when decided, every completion's verdict equals the decision.
    With ``orders``, only the finished subsets that are a prefix of one of them (a slow gate's test).

    Returns:
        (states decided before the last item, states checked).
    """
    n = len(items)
    verdicts = {}
    for full in itertools.product(values, repeat=n):
        verdicts[full] = gate_verdict([ended(item, v) for item, v in zip(items, full, strict=True)], gates)
    early = checked = 0
    masks = range(2**n) if orders is None else sorted({sum(1 << i for i in order[:j]) for order in orders
                                                        for j in range(n + 1)})
    for mask in masks:
        done_at = [i for i in range(n) if mask >> i & 1]
        rest = [i for i in range(n) if not mask >> i & 1]
        for outcomes in itertools.product(values, repeat=len(done_at)):
            done = [ended(items[i], v) for i, v in zip(done_at, outcomes, strict=True)]
            decision = exact_decision(done, [items[i] for i in rest], gates)
            checked += 1
            if not rest:
                assert decision.decided and decision.verdict == verdicts[tuple(outcomes)]
                continue
            if not decision.decided:
                continue
            early += 1
            assert decision.passes == passes(decision.verdict or ())
            for completion in itertools.product(values, repeat=len(rest)):
                full = [0.0] * n
                for i, v in zip(done_at, outcomes, strict=True):
                    full[i] = v
                for i, v in zip(rest, completion, strict=True):
                    full[i] = v
                assert verdicts[tuple(full)] == decision.verdict, (done_at, outcomes, completion)
    return early, checked


@pytest.mark.parametrize("spec", ["avg@2=0.5", "pass@2=0.5,pass^2=0.25", "user.pass^2=0.5", "user.avg=0.6",
                                  "pass^1=0.5", "pass^3=0.1,avg=0.3"])
def test_every_state_of_a_small_run_decides_as_the_full_run(spec):
    items = plan([2, 1], trials=2)
    early, checked = check_exhaustively(items, Gates(trials=2, thresholds=tuple(parse_fail_under(spec))),
                                        (0.0, 0.5, 1.0))
    assert checked == 4**6
    assert early > 100  # the test is not vacuous: many states decide before the last item


def test_errors_and_official_style_and_a_subtask_without_criteria():
    items = plan([2, 1], trials=2)
    # The first user's second subtask has no criteria: the judge skips it, known before it runs.
    items = [Pending(**{**vars(i), "skip": NO_CRITERIA}) if i.subtask_id == "st1" and i.user_id == "u0" else i
             for i in items]
    for style in ("default", "official"):
        gates = Gates(trials=2, style=style, thresholds=tuple(parse_fail_under("avg@2=0.5,user.pass@2=0.5")))
        early, _ = check_exhaustively(items, gates, (0.0, ERROR, 1.0))
        assert early > 50


def test_two_backends_and_a_threshold_on_one():
    items = plan([1, 1], trials=1, memories=("none", "full_context"))
    gates = Gates(trials=1, thresholds=tuple(parse_fail_under("full_context:avg=0.5,pass^1=0.4")))
    early, _ = check_exhaustively(items, gates, (0.0, 0.5, 1.0))
    assert early > 20


def baseline_records(items: list[Pending], reward: float) -> tuple[dict, ...]:
    return tuple({"nodeid": i.nodeid, "user_id": i.user_id, "subtask_id": i.subtask_id, "memory": i.memory,
                  "trial": i.trial, "reward": reward, "outcome": "passed" if reward == 1.0 else "failed",
                  "domain": i.domain} for i in items)


@pytest.mark.parametrize("drop", [0.0, 0.3])
def test_the_regression_gate_decides_as_the_full_run(drop):
    items = plan([1, 1, 1, 1], trials=2)
    gates = Gates(trials=2, baseline=baseline_records(items, 1.0), fail_regression=drop)
    orders = [list(range(len(items))), [0, 2, 4, 6, 1, 3, 5, 7], [7, 5, 3, 1, 6, 4, 2, 0]]
    early, _ = check_exhaustively(items, gates, (0.0, 1.0), orders)
    assert early > 100
    # Both verdicts occur: a run that regresses everywhere fails, one that holds up passes.
    assert gate_verdict([i.ended(0.0) for i in items], gates)[-1][2] == "failed"
    assert gate_verdict([i.ended(1.0) for i in items], gates)[-1][2] == "passed"


def test_a_baseline_that_fails_at_both_ends_and_one_that_cannot_be_read():
    items = plan([1, 1, 1, 1, 1, 1], trials=2)
    gates = Gates(trials=2, baseline=baseline_records(items, 1.0), fail_regression=0.1)
    done = [i.ended(0.0) for i in items[:-2]]
    decision = exact_decision(done, items[-2:], gates)
    assert decision.decided and decision.verdict == (("regression", None, "failed"),) and decision.passes is False
    broken = Gates(trials=2, baseline_error="cannot read base.json", fail_regression=0.1)
    assert exact_decision([], items, broken).verdict == (("regression", None, "failed"),)


def test_a_judge_threshold_waits_for_the_last_item_and_no_gate_never_decides():
    items = plan([1], trials=2)
    judge = Gates(trials=2, thresholds=tuple(parse_fail_under("judge.agreement=0.9")))
    assert not exact_decision([items[0].ended(1.0)], items[1:], judge).decided
    assert exact_decision([i.ended(1.0) for i in items], [], judge).decided
    assert not exact_decision([], items, Gates(trials=2)).decided


def test_the_decision_says_how_far_each_gate_is():
    items = plan([2, 2], trials=2)
    gates = Gates(trials=2, thresholds=tuple(parse_fail_under("avg@2=0.6")))
    decision = exact_decision([i.ended(1.0) for i in items[:4]], items[4:], gates)
    assert not decision.decided and decision.reason == "undecided: avg@2=0.6 (none)"
    (bound,) = decision.bounds
    assert (bound.low, bound.high, bound.status_low, bound.status_high) == (0.5, 1.0, "missed", "met")
    decision = exact_decision([i.ended(1.0) for i in items[:5]], items[5:], gates)
    assert decision.decided and decision.passes and decision.reason == "decided after 5 of 8 items"


# -- random runs against the real score_run -------------------------------------------------------------------

_SPECS = ["avg@{k}=0.5", "pass@{k}=0.6", "pass^{k}=0.3", "user.avg=0.4", "user.pass^{k}=0.2", "pass^1=0.5",
          "avg=0.7,pass@{k}=0.8"]


@st.composite
def runs(draw):
    subtasks = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
    trials = draw(st.integers(1, 3))
    memories = draw(st.sampled_from([("none",), ("none", "groundtruth")]))
    items = plan(subtasks, trials, memories)
    values = draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 1.0, ERROR]), min_size=len(items),
                           max_size=len(items)))
    done_mask = draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
    spec = draw(st.sampled_from(_SPECS)).format(k=trials)
    style = draw(st.sampled_from(["default", "official"]))
    completions = draw(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0, ERROR]), min_size=len(items),
                                         max_size=len(items)), min_size=1, max_size=4))
    unselected = draw(st.integers(0, 1))  # --vita-trials above the trials selected (-k t0 ...)
    return items, values, done_mask, spec, trials, style, completions, unselected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_a_decision_equals_score_runs_verdict_on_random_runs(run):
    items, values, done_mask, spec, trials, style, completions, unselected = run
    thresholds = parse_fail_under(spec)
    gates = Gates(trials=trials + unselected, selected_k=trials, seed=3, style=style, thresholds=tuple(thresholds))
    done = [ended(i, v) for i, v, d in zip(items, values, done_mask, strict=True) if d]
    pending = [i for i, d in zip(items, done_mask, strict=True) if not d]
    decision = exact_decision(done, pending, gates)
    if not decision.decided:
        return
    for completion in [values, *completions]:
        results = [*done, *(ended(i, v) for i, v, d in zip(items, completion, done_mask, strict=True) if not d)]
        outcome = score_run(results, trials=trials + unselected, selected_k=trials, seed=3, style=style,
                            thresholds=thresholds, want_failures=False)
        assert verdict_of(outcome) == decision.verdict


def test_the_regression_verdict_equals_score_runs_with_a_baseline_on_disk(tmp_path):
    items = plan([1, 1, 1, 1, 1, 1], trials=2)
    base = [i.ended(1.0) for i in items]
    report = build_report({}, compute_metrics(base, bootstrap=0), base)
    (tmp_path / "base.json").write_text(json.dumps(report), encoding="utf-8")
    gates = Gates(trials=2, seed=5, baseline=baseline_records(items, 1.0), fail_regression=0.2)
    for n_failed in range(len(items) + 1):
        results = [i.ended(0.0 if n < n_failed else 1.0) for n, i in enumerate(items)]
        outcome = score_run(results, trials=2, seed=5, baseline=str(tmp_path / "base.json"), fail_regression=0.2,
                            want_failures=False)
        assert verdict_of(outcome) == gate_verdict(results, gates)
