"""The rules judge: machine checks against the final state and trajectory, not-judged rubrics, outcomes."""

from __future__ import annotations

import pytest
from _paths import VB1_DIR, VB1_SKIP_REASON
from _suites import delivery_subtask

from pytest_vitabench.domains import build_environment
from pytest_vitabench.judges.base import JudgeCase
from pytest_vitabench.judges.rules import RulesJudge, condition_problem
from pytest_vitabench.messages import Message, ToolCall
from pytest_vitabench.suite.checks import Condition
from pytest_vitabench.suite.schema import SubTask


def _case(sub: dict, orders=(), pay=True, messages=(), termination="agent_stop"):
    subtask = SubTask.model_validate(sub)
    env = build_environment("delivery", subtask.environment, user_id="U1", time=subtask.env_time, seed=3)
    for store, product in orders:
        made = env.call("create_delivery_order", {
            "user_id": "U1", "store_id": store, "product_ids": [product], "product_cnts": [1],
            "address": "No. 1 Test Road, Home", "dispatch_time": subtask.env_time})
        assert not made.error, made.content
        if pay:
            order_id = [r for r in env.records() if r["new"]][-1]["record_id"]
            assert not env.call("pay_delivery_order", {"order_id": order_id}).error
    return JudgeCase(subtask=subtask, messages=list(messages), environment=env, termination=termination,
                     time=subtask.env_time)


def test_all_checks_met_gives_reward_one():
    verdict = RulesJudge().judge(_case(delivery_subtask("s1"), orders=[("S2", "P2")]))
    assert verdict.reward == 1.0 and [v.met for v in verdict.rubrics] == [True, True]


def test_an_unmet_check_says_why():
    verdict = RulesJudge().judge(_case(delivery_subtask("s1"), orders=[("S1", "P1")], pay=False))
    assert verdict.reward == 0.0
    product, paid = verdict.rubrics
    # ids carry the names from the environment, so the reader sees what was ordered
    assert product.met is False and "missing ['P2' (Beef noodles, no cilantro)]" in product.reason
    assert paid.met is False and "is 'unpaid', expected 'paid'" in paid.reason


def test_no_order_at_all():
    verdict = RulesJudge().judge(_case(delivery_subtask("s1")))
    assert verdict.reward == 0.0 and "no delivery record was created" in verdict.rubrics[0].reason


def test_failing_terminations_score_zero_even_when_checks_pass():
    verdict = RulesJudge().judge(_case(delivery_subtask("s1"), orders=[("S2", "P2")], termination="max_steps"))
    assert verdict.reward == 0.0 and all(v.met for v in verdict.rubrics)


def test_rubric_without_check_is_not_judged_and_outcome_decides():
    sub = delivery_subtask("s1")
    sub["evaluation_criteria"]["overall_rubrics"].append("The agent was polite")
    good = RulesJudge().judge(_case(sub, orders=[("S2", "P2")]))
    texts = {v.text: v for v in good.rubrics}
    assert texts["The agent was polite"].met is None
    assert [v.kind for v in good.rubrics].count("outcome") == 1 and good.reward == 1.0
    bad = RulesJudge().judge(_case(sub, orders=[("S1", "P1")]))
    assert bad.reward == 0.0 and [v.met for v in bad.rubrics if v.kind == "outcome"] == [False]


def test_target_markers_are_used_when_no_target_ids():
    sub = delivery_subtask("s1")
    sub.pop("rubric_checks")
    sub.pop("target_product_ids")
    verdict = RulesJudge().judge(_case(sub, orders=[("S2", "P2")]))
    assert verdict.reward == 1.0 and "P2" in verdict.rubrics[-1].text
    assert all(v.met is None for v in verdict.rubrics if v.kind == "rubric")


def test_nothing_judgeable_is_reported_not_passed():
    sub = delivery_subtask("s1")
    for key in ("rubric_checks", "target_product_ids"):
        sub.pop(key)
    for store in sub["environment"]["stores"].values():
        for product in store["products"]:
            product["product_type"] = "normal"
    verdict = RulesJudge().judge(_case(sub, orders=[("S2", "P2")]))
    assert verdict.not_judgeable and verdict.reward == 0.0


def test_text_and_tool_checks():
    sub = delivery_subtask("s1")
    sub["evaluation_criteria"]["overall_rubrics"] += ["Asks about quantity", "Checks the weather"]
    sub["rubric_checks"] += [
        {"rubric": "Asks about quantity", "check": {"kind": "asked", "pattern": "how many"}},
        {"rubric": "Checks the weather", "check": {"kind": "tool_called", "name": "weather",
                                                   "where": {"date_start": {"eq": "2025-06-01"}}}},
    ]
    messages = [
        Message(role="assistant", content="How many bowls?", tool_calls=[
            ToolCall(id="1", name="weather", arguments={"address": "x", "date_start": "2025-05-01", "date_end": "x"})]),
        Message(role="assistant", content="How many bowls would you like?"),
    ]
    verdict = RulesJudge().judge(_case(sub, orders=[("S2", "P2")], messages=messages))
    by_text = {v.text: v for v in verdict.rubrics}
    assert by_text["Asks about quantity"].met is True and "[1]" in by_text["Asks about quantity"].reason
    assert by_text["Checks the weather"].met is False


@pytest.mark.parametrize("value, cond, ok", [
    (["P1", "P2"], {"includes_all": ["P2"]}, True),
    (["P1"], {"disjoint": ["P1"]}, False),
    ("2025-06-01 12:10:00", {"between": ["2025-06-01 12:00:00", "2025-06-01 12:30:00"]}, True),
    ("2025-06-01 13:00:00", {"lte": "2025-06-01 12:30:00"}, False),
    ("No. 1 Test Road, Home", {"contains": "test road"}, True),
    (4, {"in": [3, 4]}, True),
    (None, {"gte": 2}, False),
    (["a"], {"subset_of": ["a", "b"]}, True),
])
def test_conditions(value, cond, ok):
    assert (condition_problem(value, Condition.model_validate(cond)) is None) is ok


def test_empty_condition_is_rejected():
    with pytest.raises(ValueError, match="at least one operator"):
        Condition.model_validate({})


@pytest.mark.skipif(not VB1_DIR.is_dir(), reason=VB1_SKIP_REASON)
def test_vitabench1_required_orders_are_deduplicated():
    from pytest_vitabench.suite.loader import load_suite

    suite = load_suite(VB1_DIR / "delivery_tasks_en.json")
    user = next(u for u in suite.users if u.key == "G0716002")
    sub = user.task.subtasks[0]
    env = build_environment("delivery", sub.environment, user_id=user.task.user_id, time=user.times[0], seed=0)
    verdict = RulesJudge().judge(JudgeCase(subtask=sub, messages=[], environment=env, termination="agent_stop",
                                           time=user.times[0]))
    assert len([v for v in verdict.rubrics if v.kind == "outcome"]) == 3
