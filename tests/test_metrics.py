"""Metrics: official formulas and edge cases, the fixed crash semantics, intervals and breakdowns."""

from __future__ import annotations

import itertools
import random

import pytest

from pytest_vitabench.formulas import is_success, pass_at_k, pass_hat_k
from pytest_vitabench.metrics import compute_metrics, default_k
from pytest_vitabench.result import ItemResult

DOMAIN = {"s1": "delivery", "s2": "ota"}
SKILLS = {"s1": ["personalize"], "s2": ["proactive", "personalize"]}


def item(user: str, subtask: str, trial: int, reward: float, outcome: str | None = None,
         memory: str = "full_context", suite: str = "demo") -> ItemResult:
    if outcome is None:
        outcome = "passed" if reward == 1.0 else "failed"
    return ItemResult(nodeid=f"{suite}::{user}::{subtask}[{memory}-t{trial}]", suite=suite, user_id=user,
                      subtask_id=subtask, domain=DOMAIN.get(subtask, "instore"),
                      skills=SKILLS.get(subtask, []), memory=memory, trial=trial, reward=reward,
                      outcome=outcome)


def base_results() -> list[ItemResult]:
    """Two users, two subtasks, two trials; B's s1 trial 0 crashed although a reward was recorded."""
    return [
        item("A", "s1", 0, 1.0), item("A", "s1", 1, 1.0),
        item("A", "s2", 0, 1.0), item("A", "s2", 1, 0.0),
        item("B", "s1", 0, 1.0, outcome="error"), item("B", "s1", 1, 0.0),
        item("B", "s2", 0, 1.0), item("B", "s2", 1, 1.0),
    ]


# ---------------------------------------------------------------------------------------------- formulas


def brute_pass_at(n: int, c: int, k: int) -> float:
    trials = [True] * c + [False] * (n - c)
    draws = list(itertools.combinations(range(n), k))
    return sum(any(trials[i] for i in d) for d in draws) / len(draws)


def brute_pass_hat(n: int, c: int, k: int) -> float:
    trials = [True] * c + [False] * (n - c)
    draws = list(itertools.combinations(range(n), k))
    return sum(all(trials[i] for i in d) for d in draws) / len(draws)


def test_formulas_hand_computed():
    assert pass_hat_k(5, 3, 2) == pytest.approx(3 / 10)
    assert pass_at_k(5, 3, 2) == pytest.approx(9 / 10)
    assert pass_at_k(10, 2, 3) == pytest.approx(64 / 120)
    # The leaderboard setting n = k = 4.
    assert pass_hat_k(4, 4, 4) == 1.0 and pass_hat_k(4, 3, 4) == 0.0
    assert pass_at_k(4, 1, 4) == 1.0 and pass_at_k(4, 0, 4) == 0.0


@pytest.mark.parametrize("n", range(1, 7))
def test_formulas_match_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_pass_at(n, c, k))
            assert pass_hat_k(n, c, k) == pytest.approx(brute_pass_hat(n, c, k))


def test_official_edge_cases():
    assert pass_at_k(3, 3, 4) == 0.0  # n < k
    assert pass_at_k(3, 4, 2) == 0.0  # c > n
    assert pass_at_k(5, 4, 2) == 1.0  # n - c < k
    with pytest.raises(ValueError, match="n=3 < k=4"):
        pass_hat_k(3, 3, 4)
    with pytest.raises(ValueError, match="more successes"):
        pass_hat_k(3, 4, 2)
    for bad in ((-1, 0, 1), (2, -1, 1), (2, 1, 0)):
        with pytest.raises(ValueError):
            pass_at_k(*bad)
        with pytest.raises(ValueError):
            pass_hat_k(*bad)


def test_is_success_only_perfect_reward():
    assert is_success(1.0) and is_success(1)
    assert not is_success(0.999999) and not is_success(0.0)


# ------------------------------------------------------------------------------------------ aggregation


def test_subtask_and_user_levels_hand_computed():
    m = compute_metrics(base_results(), bootstrap=0)["full_context"]
    assert m["k"] == 2 and m["n_skipped"] == 0
    sub = m["subtask"]
    # Units (avg, pass@2, pass^2): A-s1 (1,1,1), A-s2 (.5,1,0), B-s1 (0,0,0: the error counts 0),
    # B-s2 (1,1,1).
    assert sub["avg@2"] == pytest.approx(0.625)
    assert sub["pass@2"] == pytest.approx(0.75)
    assert sub["pass^2"] == pytest.approx(0.5)
    assert sub["n_units"] == 4 and sub["n_errors"] == 1
    user = m["user"]
    # A's trial rewards [1, .5] (c=1); B's [.5, .5] (c=0).
    assert user["avg@2"] == pytest.approx(0.625)
    assert user["pass@2"] == pytest.approx(0.5)
    assert user["pass^2"] == 0.0
    assert user["n_units"] == 2 and user["n_errors"] == 1


def test_breakdowns_by_domain_and_skill():
    m = compute_metrics(base_results(), bootstrap=0)["full_context"]
    delivery = m["subtask"]["by_domain"]["delivery"]
    assert (delivery["avg@2"], delivery["pass@2"], delivery["pass^2"]) == pytest.approx((0.5, 0.5, 0.5))
    assert delivery["n_units"] == 2 and delivery["n_errors"] == 1
    assert "by_domain" not in delivery and "by_skill" not in delivery
    proactive = m["subtask"]["by_skill"]["proactive"]
    assert (proactive["avg@2"], proactive["pass@2"], proactive["pass^2"]) == pytest.approx((0.75, 1.0, 0.5))
    # An item counts under each of its skills: personalize covers everything.
    personalize = m["subtask"]["by_skill"]["personalize"]
    assert personalize["avg@2"] == pytest.approx(m["subtask"]["avg@2"])
    ota_user = m["user"]["by_domain"]["ota"]
    assert (ota_user["avg@2"], ota_user["pass@2"], ota_user["pass^2"]) == pytest.approx((0.75, 1.0, 0.5))
    assert sorted(m["subtask"]["by_domain"]) == ["delivery", "ota"]


def test_user_whose_every_trial_errored_still_counts():
    crashed = [item("C", s, t, 0.0, outcome="error") for s in ("s1", "s2") for t in (0, 1)]
    m = compute_metrics(base_results() + crashed, bootstrap=0)["full_context"]
    assert m["subtask"]["n_units"] == 6 and m["subtask"]["n_errors"] == 5
    assert m["subtask"]["avg@2"] == pytest.approx(2.5 / 6)
    assert m["user"]["n_units"] == 3
    assert m["user"]["avg@2"] == pytest.approx(1.25 / 3)


def test_skipped_items_are_excluded_and_counted():
    extra = [item("A", "s3", 0, 0.0, outcome="skipped"), item("B", "s1", 2, 0.0, outcome="skipped")]
    plain = compute_metrics(base_results(), bootstrap=0)
    with_skips = compute_metrics(base_results() + extra, bootstrap=0)
    assert with_skips["full_context"]["n_skipped"] == 2
    # Skips change nothing else, not even K (B-s1 would otherwise have 3 trials).
    with_skips["full_context"]["n_skipped"] = 0
    assert with_skips == plain


def test_backend_with_only_skipped_items():
    results = base_results() + [item("A", "s1", 0, 0.0, outcome="skipped", memory="rag")]
    rag = compute_metrics(results, bootstrap=0)["rag"]
    assert rag["n_skipped"] == 1 and rag["k"] == 2
    assert rag["subtask"]["n_units"] == 0 and rag["subtask"]["avg@2"] is None
    assert rag["subtask"]["ci95"]["avg@2"] is None


def test_backends_are_separate():
    results = base_results() + [item(u, s, t, 1.0, memory="groundtruth")
                                for u in "AB" for s in ("s1", "s2") for t in (0, 1)]
    m = compute_metrics(results, bootstrap=0)
    assert sorted(m) == ["full_context", "groundtruth"]
    assert m["groundtruth"]["subtask"]["pass^2"] == 1.0
    assert m["full_context"]["subtask"]["pass^2"] == pytest.approx(0.5)


def test_default_k_is_smallest_trial_count_and_explicit_k():
    results = base_results() + [item("A", "s1", 2, 0.0)]  # A-s1 now has 3 trials
    assert default_k(results) == 2
    m = compute_metrics(results, bootstrap=0)["full_context"]
    assert m["k"] == 2
    # A-s1 is (1, 1, 0): avg 2/3, pass@2 = 1, pass^2 = C(2,2)/C(3,2) = 1/3.
    assert m["subtask"]["avg@2"] == pytest.approx((2 / 3 + 0.5 + 0 + 1) / 4)
    assert m["subtask"]["pass^2"] == pytest.approx((1 / 3 + 0 + 0 + 1) / 4)
    one = compute_metrics(base_results(), k=1, bootstrap=0)["full_context"]["subtask"]
    assert one["pass@1"] == pytest.approx(one["avg@1"]) == pytest.approx(0.625)
    assert one["pass^1"] == pytest.approx(0.625)
    with pytest.raises(ValueError):
        compute_metrics(base_results(), k=0)


def test_units_with_fewer_than_k_trials_score_zero_but_stay():
    m = compute_metrics(base_results(), k=3, bootstrap=0)["full_context"]
    assert m["k"] == 3
    sub = m["subtask"]
    assert sub["n_units"] == 4 and sub["n_short"] == 4
    assert sub["avg@3"] == sub["pass@3"] == sub["pass^3"] == 0.0
    assert m["user"]["n_short"] == 2


def many_results(n_users: int = 20, seed: int = 7) -> list[ItemResult]:
    rng = random.Random(seed)
    out = []
    for u in range(n_users):
        skill = rng.random()
        for s in range(rng.randint(3, 8)):
            for t in range(4):
                out.append(item(f"U{u:03d}", f"s{s}", t, 1.0 if rng.random() < skill else 0.0))
    return out


def test_order_independence():
    results = many_results()
    expected = compute_metrics(results, bootstrap=200, seed=3)
    rng = random.Random(1)
    for _ in range(3):
        shuffled = results[:]
        rng.shuffle(shuffled)
        assert compute_metrics(shuffled, bootstrap=200, seed=3) == expected


def test_ci_is_deterministic_and_contains_the_estimate():
    results = many_results()
    a = compute_metrics(results, bootstrap=500, seed=11)
    assert a == compute_metrics(results, bootstrap=500, seed=11)
    assert a != compute_metrics(results, bootstrap=500, seed=12)
    for level in ("subtask", "user"):
        lvl = a["full_context"][level]
        for key in ("avg@4", "pass@4", "pass^4"):
            lo, hi = lvl["ci95"][key]
            assert lo <= lvl[key] <= hi
            if level == "subtask":
                assert lo < hi  # 20 users of different skill: a real interval


def test_ci_depends_on_its_seed_only():
    results = many_results()
    first, other, again = (compute_metrics(results, bootstrap=300, seed=seed) for seed in (5, 6, 5))
    assert first == again != other


def test_ci_single_user_is_the_point():
    results = [r for r in base_results() if r.user_id == "A"]
    lvl = compute_metrics(results, bootstrap=100)["full_context"]["subtask"]
    assert lvl["ci95"]["avg@2"] == [0.75, 0.75]
    assert lvl["ci95"]["pass^2"] == [0.5, 0.5]


def test_ci_resamples_users_not_units():
    # X solves 3 subtasks every time, Y fails its only one. Resampling users draws "Y, Y" a quarter of the
    # time, so the lower bound is 0; resampling the 4 units would almost never give 0.
    results = [item("X", f"x{s}", t, 1.0) for s in range(3) for t in range(2)]
    results += [item("Y", "y0", t, 0.0) for t in range(2)]
    lvl = compute_metrics(results, bootstrap=1000)["full_context"]["subtask"]
    assert lvl["avg@2"] == pytest.approx(0.75)
    assert lvl["ci95"]["avg@2"] == [0.0, 1.0]


def test_bootstrap_zero_gives_no_interval():
    lvl = compute_metrics(base_results(), bootstrap=0)["full_context"]["subtask"]
    assert lvl["ci95"] == {"avg@2": None, "pass@2": None, "pass^2": None}


def test_empty_results():
    assert compute_metrics([]) == {}
