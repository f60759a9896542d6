"""Paired run comparison: the exact test, the bootstrap over users, pairing rules and the gate."""

from __future__ import annotations

import math

import pytest

from pytest_vitabench.report.compare import (
    binomial_two_sided,
    changed_settings,
    compare_results,
    regression_gate,
    regression_list,
    render_comparison,
)


def _items(memory, rewards):
    """rewards: {(user, subtask): [reward per trial]}"""
    return [{"nodeid": f"f::{u}::{s}[{memory}-t{t}]", "user_id": u, "subtask_id": s, "memory": memory, "trial": t,
             "reward": r, "outcome": "passed" if r == 1.0 else "failed", "domain": "delivery"}
            for (u, s), trials in rewards.items() for t, r in enumerate(trials)]


def test_exact_mcnemar_matches_the_binomial_tail():
    assert binomial_two_sided(0, 0) == 1.0
    assert binomial_two_sided(0, 10) == pytest.approx(2 / 1024)
    assert binomial_two_sided(2, 8) == pytest.approx(2 * (1 + 10 + 45) / 1024)
    assert binomial_two_sided(5, 5) == 1.0
    assert binomial_two_sided(3, 1) == binomial_two_sided(1, 3)


def _many_users(drop_users, n_users=12):
    base, new = {}, {}
    for i in range(n_users):
        for s in range(3):
            base[(f"U{i:02d}", f"s{s}")] = [1.0, 1.0]
            new[(f"U{i:02d}", f"s{s}")] = [0.0, 0.0] if (i < drop_users and s == 0) else [1.0, 1.0]
    return base, new


def test_a_broad_drop_is_significant_and_listed_with_viewer_links():
    base, new = _many_users(drop_users=10)
    c = compare_results(_items("full_context", base), _items("full_context", new), bootstrap=500)
    assert c.n_units == 36 and c.n_users == 12
    assert c.delta == pytest.approx(-10 / 36)
    assert c.ci95[1] < 0 and c.discordant == {"pass_to_fail": 20, "fail_to_pass": 0}
    assert c.p_value == pytest.approx(2 / 2**20)
    assert c.significant_drop and not c.significant_gain
    assert [(u.user_id, u.subtask_id) for u in c.regressed][:2] == [("U00", "s0"), ("U01", "s0")]
    assert c.regressed[0].anchor == "#unit=U00/s0/full_context" and not c.fixed
    assert regression_list(c, "new.html")[0] == (
        "full_context U00/s0 (delivery): 1.00 -> 0.00  new.html#unit=U00/s0/full_context")
    assert regression_gate(c, 0.05).startswith("Avg drop 0.278 > allowed 0.050")
    assert regression_gate(c, 0.30) is None  # significant but not larger than allowed


def test_a_drop_on_one_user_is_not_significant_and_does_not_fail_the_gate():
    base, new = _many_users(drop_users=1)
    c = compare_results(_items("rag", base), _items("rag", new), bootstrap=500)
    assert c.delta < 0 and c.p_value == 0.5 and not c.significant_drop
    assert regression_gate(c, 0.0) is None


def test_pairs_across_backends_when_each_run_has_one_and_only_on_shared_units():
    base = _items("full_context", {("U1", "s1"): [0.0], ("U1", "s2"): [1.0], ("U2", "s1"): [0.0]})
    new = _items("groundtruth", {("U1", "s1"): [1.0], ("U2", "s1"): [1.0], ("U3", "s1"): [1.0]})
    c = compare_results(base, new, bootstrap=0)
    assert c.pairing == "full_context vs groundtruth" and c.n_units == 2 and c.ci95 is None
    assert c.only_base == 1 and c.only_new == 1 and c.delta == 1.0 and len(c.fixed) == 2
    assert c.fixed[0].anchor == "#unit=U1/s1/groundtruth"
    with pytest.raises(ValueError, match="share no memory backend"):
        compare_results(base + _items("rag", {("U1", "s1"): [1.0]}), new + _items("none", {("U1", "s1"): [1.0]}))
    with pytest.raises(ValueError, match="no \\(user, subtask\\) unit"):
        compare_results(base, _items("full_context", {("U9", "s9"): [1.0]}))
    chosen = compare_results(base + _items("rag", {("U1", "s1"): [1.0]}), new, base_memory="rag",
                             new_memory="groundtruth")
    assert chosen.n_units == 1 and chosen.delta == 0.0


def test_errors_count_as_failures_and_skipped_items_are_left_out():
    base = _items("m", {("U1", "s1"): [1.0]})
    new = _items("m", {("U1", "s1"): [1.0]})
    new[0]["outcome"] = "error"
    c = compare_results(base, new, bootstrap=0)
    assert c.delta == -1.0 and c.discordant["pass_to_fail"] == 1
    new[0]["outcome"] = "skipped"
    with pytest.raises(ValueError):
        compare_results(base, new)


def test_settings_difference_and_rendering():
    diff = changed_settings({"model": "a", "trials": 4, "suites": {"x": "aa" * 32}, "plugin_version": "1"},
                            {"model": "b", "trials": 4, "suites": {"y": "bb" * 32}, "plugin_version": "2"})
    assert diff == {"model": ["a", "b"], "suite sha256": [["a" * 12], ["b" * 12]]}
    base, new = _many_users(drop_users=10)
    c = compare_results(_items("m", base), _items("m", new), base_config={"model": "a"}, new_config={"model": "b"},
                        bootstrap=200)
    lines = render_comparison(c, base_label="old.json", new_label="new.json", viewer="new.html", limit=2)
    text = "\n".join(lines)
    assert "settings that differ:\n  model: 'a' -> 'b'" in text
    assert "Avg: 1.000 -> 0.722, change -0.278 [" in text and "significant drop" in text
    assert "regressed: 10 subtask(s)" in text and "... and 8 more" in text and "fixed: 0 subtask(s)" in text
    assert math.isclose(c.to_dict()["delta"], c.delta) and c.to_dict()["significant_drop"] is True
