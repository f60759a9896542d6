"""The ``answer`` agent: carries out the hidden answer annotations and reaches 1.0 wherever they are solvable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _official_shape import ALL_FIXTURES, D1_CASE, VB1_INSTORE
from _paths import VB1_DIR, VB1_SKIP_REASON

from pytest_vitabench.agents import make_builtin_agent
from pytest_vitabench.agents.answer import AnswerAgent
from pytest_vitabench.config import RunConfig
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.runner import ItemRunner
from pytest_vitabench.solvability import check_solvability
from pytest_vitabench.suite.answer_key import answer_key
from pytest_vitabench.suite.loader import load_suite
from pytest_vitabench.users.scripted import ScriptedUser

DEMO = Path(__file__).resolve().parents[2] / "suites" / "demo" / "tasks.json"
#: 1.0 delivery tasks whose required orders no agent can make (products the store does not sell, a
#: malformed record); ``vitabench validate`` names them with these reasons.
VB1_UNSOLVABLE = {"30711009": "cannot be interpreted: products[1] has no product_id",
                  "80715001": "in no entity of the environment", "D0721001": "in no entity of the environment",
                  "I0716002": "in no entity of the environment",
                  "I0721002": "sold by S26061089588963101_S46131 instead"}


class _Spy:
    """A user agent (the documented way to bring your own) that records what it is given."""

    def __init__(self):
        self.setups = []

    def respond(self, setup, messages):
        from pytest_vitabench.messages import Message

        self.setups.append(setup)
        return Message(role="assistant", content="Nothing to do. ###STOP###")


def _run(path, agent, memory="none"):
    runner = ItemRunner(RunConfig(model="answer", memory=[memory], trials=1))
    suite = runner.suite(path)
    results = []
    for user in suite.users:
        assert user.task is not None, user.error
        for index, sub in enumerate(user.task.subtasks):
            results.append(runner.run(nodeid=f"{user.key}::{sub.subtask_id}", suite=suite, user=user, index=index,
                                      memory_name=memory, trial=0, agent=agent, user_simulator=ScriptedUser(),
                                      judge=RulesJudge()))
    return results


@pytest.mark.parametrize("path", [DEMO, *ALL_FIXTURES], ids=lambda p: p.name)
def test_answer_reaches_one_everywhere(path):
    results = _run(path, make_builtin_agent("answer"))
    assert results and all(r.outcome == "passed" and r.reward == 1.0 for r in results), [
        (r.subtask_id, r.error, [v.reason for v in r.rubrics if v.met is not True]) for r in results if r.reward != 1]
    assert all(r.tool_errors == 0 and r.termination == "user_stop" for r in results)


def test_answer_asks_first_on_proactive_subtasks_and_the_user_answers():
    results = [r for r in _run(DEMO, AnswerAgent()) if "proactive" in r.skills]
    assert len(results) == 5
    for r in results:
        first, reply = r.messages[2], r.messages[3]
        assert first.role == "assistant" and not first.tool_calls and first.content.endswith("?")
        assert reply.role == "user" and reply.content not in ("Whatever you think is best.",)


def test_agents_under_test_never_receive_the_answer():
    spy = _Spy()
    _run(D1_CASE, spy)
    assert spy.setups and all(s.answer is None and s.groundtruth is None for s in spy.setups)
    key_text = json.dumps([s.system_prompt + json.dumps(s.tools) for s in spy.setups])
    assert "P002701" not in key_text and "target" not in key_text


@pytest.mark.skipif(not VB1_DIR.is_dir(), reason=VB1_SKIP_REASON)
@pytest.mark.parametrize("language", ["en", "zh"])
def test_real_1_0_delivery_tasks_reach_one_except_the_unsolvable_ones(language):
    results = _run(VB1_DIR / f"delivery_tasks_{language}.json", AnswerAgent())
    failed = {r.subtask_id for r in results if r.reward != 1.0}
    assert failed == set(VB1_UNSOLVABLE)
    report = check_solvability(load_suite(VB1_DIR / f"delivery_tasks_{language}.json"))
    assert (report.annotated, report.solved) == (100, 95)
    for item in report.unsolvable:
        assert VB1_UNSOLVABLE[item.subtask_id] in item.reason


def _sub(path, index=0):
    suite = load_suite(path)
    user = suite.users[index]
    return user, user.task.subtasks[0]


def test_answer_key_from_required_orders():
    user, sub = _sub(VB1_INSTORE, 0)
    key = answer_key(sub, user_id="U300001", time=user.times[0], profile=user.task.user_profile)
    assert key.source == "required_orders" and key.solvable
    assert [(c.tool, [t.tool for t in c.then]) for c in key.calls] == [
        ("create_instore_product_order", ["pay_instore_order"]), ("instore_reservation", [])]
    assert key.calls[1].arguments == {"user_id": "U300001", "shop_id": "SH1001", "time": "2025-05-10 18:00:00",
                                      "customer_count": 4}


def test_answer_key_from_target_markers_uses_the_address_the_request_implies():
    user, sub = _sub(D1_CASE)
    key = answer_key(sub, user_id="A891207", time=user.times[0], profile=user.task.user_profile)
    assert key.source == "target_product_ids" and key.solvable
    args = key.calls[0].arguments
    assert args["store_id"] == "S00027" and args["product_ids"] == ["P002701"]
    assert args["address"].startswith("Flat 1203")  # 常住住址, the home: the request names no office
    office = sub.model_copy(update={"instruction": "Get me a dessert at the office."})
    assert answer_key(office, user_id="A891207", time=user.times[0],
                      profile=user.task.user_profile).calls[0].arguments["address"].startswith("Floor 21")
    markers_only = sub.model_copy(update={"target_product_ids": None})
    key = answer_key(markers_only, user_id="A891207", time=user.times[0], profile=user.task.user_profile)
    assert key.source == "target markers" and key.calls[0].arguments["product_ids"] == ["P002701"]


@pytest.mark.parametrize("change, fragment", [
    (lambda o: o[0]["products"][0].update(product_id="NOPE"), "product NOPE is not sold by SH1001"),
    (lambda o: o[0].update(store_id="SH_GONE"), "SH_GONE is not in the environment's shops"),
])
def test_answer_key_names_why_a_subtask_is_unsolvable(change, fragment):
    user, sub = _sub(VB1_INSTORE, 0)
    sub = sub.model_copy(deep=True)
    change(sub.evaluation_criteria.expected_states[0].required_orders)
    key = answer_key(sub, user_id="U300001", time=user.times[0], profile=user.task.user_profile)
    assert not key.solvable and any(fragment in p for p in key.problems), key.problems


def test_a_subtask_without_annotations_has_an_empty_key():
    user, sub = _sub(D1_CASE)
    bare = sub.model_copy(deep=True, update={"target_product_ids": None})
    for store in bare.environment["stores"].values():
        store.pop("store_type", None)
        for product in store["products"]:
            product.pop("product_type", None)
    key = answer_key(bare, user_id="A891207", time=user.times[0], profile={})
    assert key.source == "" and not key.solvable and not key.calls


def test_an_entity_level_target_books_one_of_its_offers(tmp_path):
    from _official_shape import VB1_OTA

    data = json.loads(D1_CASE.read_text(encoding="utf-8"))
    environment = json.loads(VB1_OTA.read_text(encoding="utf-8"))[0]["environment"]
    environment.update(user_id="A891207", time="2025-04-01 09:00:00")
    for hotel in environment["hotels"].values():
        for room in hotel["products"]:
            room.pop("product_type", None)  # only the hotel itself is marked (hotel_type: target)
    data[0]["subtasks"] = [{**data[0]["subtasks"][0], "domain": "ota", "environment": environment,
                            "target_product_ids": None, "instruction": "Book me a hotel in Hangzhou."}]
    path = tmp_path / "ota.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    user, sub = _sub(path)
    key = answer_key(sub, user_id="A891207", time=user.times[0], profile=user.task.user_profile)
    assert key.source == "target markers" and key.solvable
    assert [(c.tool, c.arguments["hotel_id"]) for c in key.calls] == [("create_hotel_order", "H1")]
    assert [r.reward for r in _run(path, AnswerAgent())] == [1.0]
