"""Statistical early stopping: the bets' error rate on fixed populations, and the decision on item results."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_vitabench.options.fail_under import parse_fail_under
from pytest_vitabench.report.early_stop import Gates, Pending, gate_verdict
from pytest_vitabench.report.outcome import score_run
from pytest_vitabench.report.sequential import StatisticalStop, decided_at
from pytest_vitabench.run.schedule import user_order


def population(n: int, mean: float, rng: random.Random) -> list[float]:
    return [min(1.0, max(0.0, rng.gauss(mean, 0.25))) for _ in range(n)]


@pytest.mark.parametrize("distance", [0.0, 0.01, -0.01])
def test_the_wrong_side_is_taken_at_most_alpha_of_the_time_near_the_threshold(distance):
    rng = random.Random(11)
    values = population(80, 0.75, rng)  # a fifth of the users at exactly 1, where sums of floats drift
    m = math.fsum(values) / len(values) + distance
    truth = math.fsum(values) / len(values) >= m
    wrong = 0
    for _ in range(1000):
        rng.shuffle(values)
        found = decided_at(values, len(values), m, 0.05)
        assert found is not None  # every user seen: always decided
        wrong += found[1] != truth
    assert wrong <= 50 + 3 * math.sqrt(1000 * 0.05 * 0.95)


def test_far_from_the_threshold_a_sample_decides_and_the_whole_population_always_does():
    rng = random.Random(2)
    values = population(200, 0.8, rng)
    found = decided_at(values, 200, 0.5, 0.05)
    assert found is not None and found[1] and found[0] < 60
    found = decided_at(values, 200, 0.95, 0.05)
    assert found is not None and not found[1] and found[0] < 60
    mean = math.fsum(values) / 200
    assert decided_at(values, 200, mean, 1e-6) == (200, True)  # exactly at the threshold: met, as the gate says
    assert decided_at([], 10, 0.5, 0.05) is None
    with pytest.raises(ValueError, match="draws"):
        decided_at([0.5] * 3, 2, 0.5, 0.05)


def test_the_finite_population_settles_what_the_rest_cannot_change():
    # 9 of 10 users seen, all at 1: even a 0 last could not bring the mean below 0.85.
    assert decided_at([1.0] * 9, 10, 0.85, 1e-9) == (9, True)
    assert decided_at([0.0] * 9, 10, 0.15, 1e-9) == (9, False)


def plan(users: int, subtasks: int, trials: int) -> list[Pending]:
    return [Pending(nodeid=f"s::u{u}::st{s}[none-t{t}]", user_id=f"u{u}", subtask_id=f"st{s}", subtask_index=s,
                    memory="none", trial=t, suite="s", domain="delivery")
            for u in range(users) for s in range(subtasks) for t in range(trials)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), st.integers(1, 3), st.integers(0, 10**6),
       st.sampled_from(["avg@{k}=0.5", "pass@{k}=0.5", "user.pass^{k}=0.3", "pass^1=0.4", "user.avg=0.5"]),
       st.sampled_from(["default", "official"]))
def test_users_shares_add_up_to_the_gates_figure(users, subtasks, trials, seed, spec, style):
    rng = random.Random(seed)
    items = plan(users, subtasks, trials)
    results = [i.ended(rng.choice([0.0, 0.5, 1.0])) for i in items]
    gates = Gates(trials=trials, style=style, thresholds=tuple(parse_fail_under(spec.format(k=trials))))
    # The last user not finished: every other user's share is known.
    stop = StatisticalStop(gates, alpha=0.05, order=[])
    done = [r for r in results if r.user_id != f"u{users - 1}"] + [results[-1]]
    pending = [i for i in items if i.user_id == f"u{users - 1}"][:-1]
    (test,) = stop._tests(done, pending)
    thresholds = list(gates.thresholds or ())
    (outcome,) = score_run(results, trials=trials, seed=0, style=style, thresholds=thresholds,
                           want_failures=False).threshold_outcomes
    total = sum(test.units.values())  # type: ignore[union-attr]
    last = [r for r in results if r.user_id == f"u{users - 1}"]
    (own,) = score_run(last, trials=trials, seed=0, style=style, thresholds=thresholds,
                       want_failures=False).threshold_outcomes
    known = sum(s for user, (s, _) in test.shares.items() if user != ("s", f"u{users - 1}"))  # type: ignore[union-attr]
    assert outcome.value is not None and own.value is not None
    n_last = test.units[("s", f"u{users - 1}")]  # type: ignore[union-attr]
    assert math.isclose((known + own.value * n_last) / total, outcome.value, abs_tol=1e-12)


def test_a_run_far_above_its_threshold_stops_after_a_sample_of_users_and_says_why():
    rng = random.Random(5)
    items = plan(40, 3, 2)
    rate = {f"u{u}": rng.uniform(0.7, 1.0) for u in range(40)}
    results = {i.nodeid: i.ended(1.0 if rng.random() < rate[i.user_id] else 0.0) for i in items}
    gates = Gates(trials=2, thresholds=tuple(parse_fail_under("avg@2=0.4")))
    order = user_order([("s", f"u{u}") for u in range(40)], seed=3)
    stop = StatisticalStop(gates, alpha=0.05, order=order)
    ran = []
    for user in order:
        ran += [results[i.nodeid] for i in items if i.user_id == user[1]]
        decision = stop.decide(ran, [i for i in items if i.nodeid not in {r.nodeid for r in ran}])
        if decision.decided:
            break
    assert decision.decided and decision.passes and decision.run < len(items) / 2
    assert decision.verdict == gate_verdict(list(results.values()), gates)
    assert decision.reason == f"decided after {decision.run} of {len(items)} items (alpha 0.05)"


def test_users_finished_out_of_order_wait_for_the_head_of_the_order():
    items = plan(30, 1, 1)
    gates = Gates(trials=1, thresholds=tuple(parse_fail_under("avg@1=0.6")))
    order = [("s", f"u{u}") for u in range(30)]
    # 16 users at 1 of 30: not certain (0.53 to 1), and u0, the head of the order, has not finished.
    done = [i.ended(1.0) for i in items[1:17]]
    decision = StatisticalStop(gates, alpha=0.05, order=order).decide(done, [items[0], *items[17:]])
    assert not decision.decided and decision.reason == "undecided: avg@1=0.6 (none)"
    done = [i.ended(1.0) for i in items[:16]]
    decision = StatisticalStop(gates, alpha=0.05, order=order).decide(done, items[16:])
    assert decision.decided and decision.passes
    with pytest.raises(ValueError, match="alpha"):
        StatisticalStop(gates, alpha=1.0, order=order)
