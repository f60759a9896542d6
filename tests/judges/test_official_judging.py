"""Judge inputs and semantics under the official profile vs our default, over real HTTP to the stub server.

Pins the official trajectory judge (it sees no database) and the official outcome judge (the last
resolvable write, failed or not, the target entity next to the chosen one, every rubric must hold, no
"not applicable"), and that the suite's language reaches the judge prompts.
"""

from __future__ import annotations

import json

from _stub_llm import StubLLM
from _suites import tiny_suite

from pytest_vitabench.domains import build_environment
from pytest_vitabench.judges import make_judge
from pytest_vitabench.judges.base import JudgeCase
from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.messages import Message, ToolCall
from pytest_vitabench.official.outcome import resolve_action, sanitise, target_entity
from pytest_vitabench.suite.schema import SubTask

TIME = "2025-06-01 11:00:00"


def client_for(stub: StubLLM) -> LLMClient:
    return LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", backoff_base_s=0.01,
                                 backoff_max_s=0.02, max_retries=1, cache="off"))


def subtask() -> SubTask:
    data = tiny_suite()[0]["subtasks"][0]
    data["environment"]["stores"]["S2"]["store_type"] = "target"
    data["environment"]["stores"]["S1"]["store_type"] = "distraction"
    return SubTask.model_validate(data)


def conversation(*, products: list[list[str]], fail_last: bool = False, language: str = "en") -> JudgeCase:
    sub = subtask()
    env = build_environment("delivery", sub.environment, user_id="U1", time=TIME, seed=3)
    msgs = [Message(role="assistant", content="Hello, how can I help you?"),
            Message(role="user", content=sub.instruction)]
    for n, ids in enumerate(products):
        store = "S1" if ids == ["P1"] else "S2"
        args = {"user_id": "U1", "store_id": store, "product_ids": ids, "product_cnts": [1],
                "address": "No. 1 Test Road, Home", "dispatch_time": TIME}
        if fail_last and n == len(products) - 1:
            args["dispatch_time"] = "2025-05-01 11:00:00"  # in the past: refused in both profiles
        msgs.append(Message(role="assistant", tool_calls=[ToolCall(id=f"c{n}", name="create_delivery_order",
                                                                   arguments=args)]))
        result = env.call("create_delivery_order", args)
        msgs.append(Message(role="tool", tool_call_id=f"c{n}", name="create_delivery_order", content=result.content,
                            error=result.error))
    msgs.append(Message(role="assistant", content="Ordered. ###STOP###"))
    return JudgeCase(subtask=sub, messages=msgs, environment=env, termination="agent_stop", time=TIME, seed=3,
                     extra={"language": language})


def all_met(n: int) -> dict:
    return {"content": json.dumps([{"rubric_idx": i, "rubric": "x", "justification": "ok", "met": True}
                                   for i in range(1, n + 1)])}


def test_official_trajectory_judge_sees_no_database_records(stub):
    case = conversation(products=[["P2"]])
    official = make_judge("gpt-judge", client=client_for(stub), records=False)
    stub.replies = [all_met(2)]
    official.judge(case)
    sent = "\n".join(m["content"] for m in stub.requests[-1]["messages"])
    assert "Final records" not in sent and "final records" not in sent and "created_in_conversation" not in sent
    default = make_judge("gpt-judge", client=client_for(stub))
    stub.replies = [all_met(2)]
    default.judge(case)
    sent = "\n".join(m["content"] for m in stub.requests[-1]["messages"])
    assert "Final records" in sent and "created_in_conversation" in sent and '"record_type": "delivery"' in sent


def test_the_full_trajectory_judge_sends_the_official_wording_once_and_reads_official_ids(stub, tmp_path):
    from _fake_official import make_checkout

    from pytest_vitabench.official.source import locate

    source = locate(str(make_checkout(tmp_path / "harness")))
    judge = make_judge("gpt-judge", client=client_for(stub), mode="full", official_source=source)
    case = conversation(products=[["P1"], ["P2"]] * 4)  # 18 messages: two windows, but one full call
    rubrics = list(dict.fromkeys(case.subtask.rubrics()))
    stub.replies = [{"content": json.dumps([{"rubric_idx": "rubric_0", "justification": "seen", "meetExpectation":
                                             True}, {"rubric_idx": 1, "meetExpectation": True}])}]
    verdict = judge.judge(case)
    (request,) = stub.requests
    system, user = request["messages"]
    assert system["content"].startswith("English full judge {'system_time': '2025-06-01 11:00:00 Sunday'")
    assert user["content"].startswith("\n    <t>\n    [1] assistant: Hello, how can I help you?\n[2] user: ")
    assert '"rubric_idx": "rubric_0"' in user["content"] and "seed" not in request
    # only the item naming an official id counts: rubric 1 stays unjudged, and the reward is 0
    assert len(rubrics) == 2 and [v.met for v in verdict.rubrics] == [True, None] and verdict.reward == 0.0
    assert verdict.rubrics[0].reason == "seen" and verdict.details["windows"] == 1


def test_the_suite_language_reaches_the_judge_prompt(stub):
    judge = make_judge("gpt-judge", client=client_for(stub), language="en")
    stub.replies = [all_met(2)]
    judge.judge(conversation(products=[["P2"]], language="zh"))
    system = stub.requests[-1]["messages"][0]["content"]
    assert "评审" in system and "evaluator" not in system


def test_official_outcome_shows_target_and_chosen_and_judges_the_last_write_even_when_it_failed(stub):
    # First a successful order of the target, then a refused order of the look-alike: officially the last
    # resolvable write is what gets judged, failed or not; ours judges the last successful one.
    case = conversation(products=[["P2"], ["P1"]], fail_last=True)
    official = make_judge("gpt-judge", client=client_for(stub), outcome=True, records=False, outcome_style="official")
    stub.replies = [all_met(2), all_met(1)]
    verdict = official.judge(case)
    outcome_request = stub.requests[-1]
    user = outcome_request["messages"][-1]["content"]
    assert "Target entity" in user and "Chosen entity" in user
    assert '"S2"' in user.split("Chosen entity")[0]  # the target is S2 ...
    chosen = user.split("Chosen entity")[1]
    assert '"P1"' in chosen and '"P2"' not in chosen  # ... but the last (failed) call chose P1 at S1
    for hidden in ("distraction_reason", "product_type", "store_type", '"quantity"'):
        assert hidden not in user.replace('"shop_type": "target"', "")
    assert verdict.details["outcome"]["action"] == "create_delivery_order"
    assert verdict.details["outcome"]["style"] == "official"

    default = make_judge("gpt-judge", client=client_for(stub), outcome=True)
    stub.replies = [all_met(2), all_met(1)]
    default.judge(case)
    user = stub.requests[-1]["messages"][-1]["content"]
    assert "Target entity" not in user and '"P2"' in user and '"ordered_products"' in user


def test_official_outcome_has_no_not_applicable(stub):
    case = conversation(products=[["P2"]])
    reply = {"content": json.dumps([{"rubric_idx": 1, "rubric": "The order is paid", "applicable": False,
                                     "met": False, "justification": "about the conversation"}])}
    official = make_judge("gpt-judge", client=client_for(stub), outcome=True, outcome_style="official")
    stub.replies = [all_met(2), reply]
    assert official.judge(case).reward == 0.0
    default = make_judge("gpt-judge", client=client_for(stub), outcome=True)
    stub.replies = [all_met(2), reply]
    assert default.judge(case).reward == 1.0  # ours: a rubric no outcome can show is set aside


def test_official_outcome_with_writes_that_resolve_to_nothing_scores_zero(stub):
    sub = subtask()
    env = build_environment("delivery", sub.environment, user_id="U1", time=TIME, seed=3)
    args = {"user_id": "U1", "store_id": "NOPE", "product_ids": ["P9"], "product_cnts": [1],
            "address": "x", "dispatch_time": TIME}
    msgs = [Message(role="user", content="hi"),
            Message(role="assistant", tool_calls=[ToolCall(id="c", name="create_delivery_order", arguments=args)]),
            Message(role="tool", tool_call_id="c", content="Error: Store 'NOPE' not found", error=True),
            Message(role="assistant", content="Sorry. ###STOP###")]
    case = JudgeCase(subtask=sub, messages=msgs, environment=env, termination="agent_stop", time=TIME)
    judge = make_judge("gpt-judge", client=client_for(stub), outcome=True, outcome_style="official")
    stub.replies = [all_met(2)]
    verdict = judge.judge(case)
    assert verdict.reward == 0.0 and verdict.details["outcome"]["resolved"] is False
    assert len(stub.requests) == 1  # no outcome call


def test_resolution_helpers_follow_the_official_shapes():
    env = subtask().environment
    target = target_entity(env, ["P2"])
    assert target["store_id"] == "S2" and target["shop_type"] == "target"
    assert [p["product_id"] for p in target["target_products"]] == ["P2"]
    chosen = resolve_action("create_delivery_order", {"store_id": "S1", "product_ids": ["P1"], "note": "n",
                                                      "address": "a"}, env)
    assert chosen["ordered_products"][0]["product_id"] == "P1" and chosen["extra"] == {"address": "a", "note": "n"}
    assert resolve_action("create_delivery_order", {"store_id": "S1", "product_ids": ["P2"]}, env) is None
    assert resolve_action("create_taxi_order", {"taxi_id": "T"}, env) is None  # not an official write
    assert sanitise({"room_type": "double", "hotel_type": "target", "x": [{"distraction_reason": "r"}]}) == {
        "room_type": "double", "x": [{}]}
