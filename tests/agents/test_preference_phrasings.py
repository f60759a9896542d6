"""The groundtruth-reader (and reference) heuristics read preferences phrased in words other than our generator's.

Hand-written phrasings, including the paper's appendix D.1 case (one durian tong sui, merchants rated at
least 4.3, delivered home), where the former ``oracle`` ordered from the 4.0-rated look-alike.
"""

from __future__ import annotations

import json

import pytest
from _official_shape import D1_CASE

from pytest_vitabench.agents import make_builtin_agent
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.text.preferences import PreferenceMemory
from pytest_vitabench.users.scripted import ScriptedUser


@pytest.mark.parametrize("text", [
    "Has grown really fond of durian", "Is crazy about durian these days", "Can't get enough of durian",
    "Adores durian desserts", "Never gets tired of durian",
])
def test_liked_phrasings(text):
    assert PreferenceMemory(text).polarity("durian")[0] == 1


@pytest.mark.parametrize("text", [
    "Gave up pork completely this year", "Steers clear of pork", "Doesn't touch pork anymore", "Cut out pork",
    "Off pork since March", "Refuses to eat pork", "Keeps away from pork", "Won't eat pork", "Pork is a no-go",
    "Excludes pork from her diet", "Has stopped eating pork", "No longer eats pork", "Not a fan of pork",
])
def test_disliked_phrasings(text):
    assert PreferenceMemory(text).polarity("pork")[0] == -1


@pytest.mark.parametrize("text", [
    "Will only buy from merchants whose rating is 4.3 or higher", "Only merchants rated 4.3 and above",
    "No merchant below 4.3", "Merchant rating must be ≥4.3", "Shops scoring at least 4.3", "Rating no less than 4.3",
    "Only trusts stores with 4.3+ stars", "商家评分4.3以上", "Refuses merchants rated under 4.3",
])
def test_rating_floor_phrasings(text):
    assert PreferenceMemory(text).threshold("min_score", {"dessert"}) == 4.3


@pytest.mark.parametrize("text", [
    "Keeps lunch under 40 yuan", "Budget: 40 yuan max for lunch", "Won't pay over 40 yuan for lunch",
    "Price cap of ¥40 for lunch", "Lunch should cost 40 yuan or less",
])
def test_price_cap_phrasings(text):
    assert PreferenceMemory(text).threshold("max_price", {"lunch"}) == 40


def _d1(tmp_path, *, hard: bool, drop_floor: bool = False):
    data = json.loads(D1_CASE.read_text(encoding="utf-8"))
    sub = data[0]["subtasks"][0]
    if hard:
        # Make the rating floor decide: the look-alike is otherwise the better match (an extra liked tag).
        stores = sub["environment"]["stores"]
        stores["S00027"]["score"] = 4.4
        stores["S00031"]["score"] = 4.2
        stores["S00031"]["products"][0]["tags"].append("light")
        stores["S00031"]["name"] = "Sweet Durian Dessert Corner"  # as relevant to "something sweet" as the target
    if drop_floor:
        other = sub["user_scenario"]["personalized_preference_memory"]["current"]["其他偏好"]
        other[:] = [tag for tag in other if "4.3" not in tag]
    path = tmp_path / "d1.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _reward(path, agent_name, memory):
    runner = ItemRunner(RunConfig(model=agent_name, memory=[memory], trials=1))
    suite = runner.suite(path)
    user = suite.users[0]
    result = runner.run(nodeid="d1", suite=suite, user=user, index=0, memory_name=memory, trial=0,
                        agent=make_builtin_agent(agent_name), user_simulator=ScriptedUser(), judge=RulesJudge())
    writes = [c for m in result.messages for c in m.tool_calls or [] if c.name == "create_delivery_order"]
    return result.reward, writes[-1].arguments if writes else None


@pytest.mark.parametrize("hard", [False, True])
def test_groundtruth_reader_solves_the_d1_case(tmp_path, hard):
    reward, order = _reward(_d1(tmp_path, hard=hard), "groundtruth-reader", "none")
    assert reward == 1.0 and order["store_id"] == "S00027" and order["product_ids"] == ["P002701"]
    assert order["address"].startswith("Flat 1203")  # the home address from the Chinese profile key, never empty


def test_the_rating_floor_is_what_decides_the_hard_d1_case(tmp_path):
    # The same reader without the hand-written floor ("whose rating is 4.3 or higher") takes the 4.2 look-alike.
    reward, order = _reward(_d1(tmp_path, hard=True, drop_floor=True), "groundtruth-reader", "none")
    assert reward == 0.0 and order["store_id"] == "S00031"
    assert _reward(_d1(tmp_path, hard=True), "literal", "none")[0] == 0.0
