"""The LLM rubric judge and the outcome judge over real HTTP against the stub server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from _stub_llm import Reply, StubLLM
from _suites import tiny_suite

from pytest_vitabench.domains import build_environment
from pytest_vitabench.judges import make_judge
from pytest_vitabench.judges.base import JudgeCase
from pytest_vitabench.judges.llm_rubric import LLMRubricJudge
from pytest_vitabench.judges.render import record_facts
from pytest_vitabench.llm import LLMClient, LLMError, LLMSettings
from pytest_vitabench.messages import Message, ToolCall
from pytest_vitabench.suite.schema import SubTask

TIME = "2025-06-01 11:00:00"
R1, R2 = "The order is for product P2", "The order is paid"


def client_for(stub: StubLLM, **overrides) -> LLMClient:
    settings = dict(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", backoff_base_s=0.01,
                    backoff_max_s=0.02, max_retries=2, cache="off")
    settings.update(overrides)
    return LLMClient(LLMSettings(**settings))


def subtask(**changes) -> SubTask:
    data = tiny_suite()[0]["subtasks"][0]
    data.update(changes)
    return SubTask.model_validate(data)


def case(*, filler: int = 0, product: str = "P2", pay: bool = True, write: bool = True, termination="user_stop",
         sub: SubTask | None = None, seed: int = 7) -> JudgeCase:
    """A conversation in which the agent orders ``product`` (and pays), after ``filler`` question rounds."""
    sub = sub or subtask()
    env = build_environment("delivery", sub.environment, user_id="U1", time=TIME, seed=seed)
    msgs = [Message(role="assistant", content="Hello, how can I help you?"),
            Message(role="user", content="Order me a bowl of noodles for lunch.")]
    for i in range(filler):
        msgs += [Message(role="assistant", content=f"Question {i}?"), Message(role="user", content=f"Answer {i}.")]

    def call(call_id: str, name: str, args: dict) -> str:
        msgs.append(Message(role="assistant", tool_calls=[ToolCall(id=call_id, name=name, arguments=args)]))
        result = env.call(name, args)
        msgs.append(Message(role="tool", tool_call_id=call_id, name=name, content=result.content, error=result.error))
        return result.content

    if write:
        created = call("c1", "create_delivery_order", {
            "user_id": "U1", "store_id": "S1" if product == "P1" else "S2", "product_ids": [product],
            "product_cnts": [1], "address": "No. 1 Test Road, Home", "dispatch_time": TIME})
        if pay:
            call("c2", "pay_delivery_order", {"order_id": json.loads(created)["order_id"]})
    msgs.append(Message(role="assistant", content="Done, your noodles are ordered and paid. ###STOP###"))
    return JudgeCase(subtask=sub, messages=msgs, environment=env, termination=termination, time=TIME, seed=seed)


def verdicts(*mets: bool, why: str = "because [3]") -> dict:
    return {"content": json.dumps([{"rubric_idx": i, "rubric": "x", "justification": f"{why} {i}", "met": met}
                                   for i, met in enumerate(mets, 1)])}


def user_content(body: dict) -> str:
    return body["messages"][-1]["content"]


def test_sliding_windows_carry_the_rubric_state(stub):
    c = case(filler=8)  # 2 + 16 + 4 + 1 = 23 messages: windows [1-10], [9-18], [17-23]
    assert len(c.messages) == 23
    stub.replies += [verdicts(False, False), verdicts(True, False, why="ordered"), verdicts(True, True, why="paid")]
    client = client_for(stub)
    verdict = LLMRubricJudge("judge-m", client=client).judge(c)
    assert len(stub.requests) == 3
    assert verdict.reward == 1.0 and [r.met for r in verdict.rubrics] == [True, True]
    assert verdict.rubrics[0].reason == "paid 1"  # per-rubric justifications are kept
    assert verdict.details["windows"] == 3 and verdict.details["trajectory_reward"] == 1.0
    first, second, third = (user_content(b) for b in stub.requests)
    assert "window 2 of 3 (messages [9] to [18] of 23)" in second
    assert "[9] assistant: Question 3?" in first and "[9] assistant: Question 3?" in second  # the overlap
    assert "[10] user: Answer 3." in second and "[11] " not in first
    # the state the second reply set travels into the third window
    state = json.loads(third.split("<rubrics>")[1].split("</rubrics>")[0])
    assert [s["met"] for s in state] == [True, False] and state[0]["justification"] == "ordered 1"
    for body in stub.requests:
        assert body["model"] == "judge-m" and "seed" not in body and body["temperature"] == 0.0
        assert "tools" not in body and body["messages"][0]["role"] == "system"
    assert client.ledger.by_role()["judge"].requests == 3


def test_the_judge_sees_the_final_records_as_facts_without_hidden_fields(stub):
    stub.replies.append(verdicts(True, True))
    LLMRubricJudge("m", client=client_for(stub), mode="full").judge(case())
    text = user_content(stub.requests[0])
    fact = next(line for line in text.splitlines() if line.startswith('- {"record_type"'))
    record = json.loads(fact[2:])
    assert record["status"] == "paid" and record["product_ids"] == ["P2"] and record["created_in_conversation"]
    assert record["entity_name"] == "Quiet Noodles" and record["products"] == ["P2: Beef noodles, no cilantro"]
    for hidden in ("distraction", "target", "breaks a preference", "product_type"):
        assert hidden not in text
    assert "2025-06-01 11:00:00 Sunday" in text and "Order me a bowl of noodles" in text


def test_full_trajectory_mode_makes_one_call_with_numbered_rubrics(stub):
    c = case(filler=8)
    stub.replies.append(verdicts(True, False, why="not paid"))
    verdict = LLMRubricJudge("m", client=client_for(stub), mode="full").judge(c)
    assert len(stub.requests) == 1 and verdict.reward == 0.0
    assert [(r.met, r.reason) for r in verdict.rubrics] == [(True, "not paid 1"), (False, "not paid 2")]
    text = user_content(stub.requests[0])
    assert f"1. {R1}\n2. {R2}" in text and "[1] assistant: Hello" in text and "[23] assistant: Done" in text
    assert "Every rubric starts unmet" in stub.requests[0]["messages"][0]["content"]


def test_one_repair_retry_for_unreadable_json(stub):
    stub.replies += [{"content": "Both rubrics look satisfied to me."}, verdicts(True, True)]
    verdict = LLMRubricJudge("m", client=client_for(stub), mode="full").judge(case())
    assert verdict.reward == 1.0 and len(stub.requests) == 2
    retry = stub.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Both rubrics look satisfied to me."}
    assert "could not be read as JSON" in retry[-1]["content"]
    assert any("asked once more" in note for note in verdict.details["notes"])
    assert "problems" not in verdict.details


def test_still_unreadable_keeps_the_state_and_says_so(stub):
    c = case(filler=8)
    stub.replies += [verdicts(True, False), {"content": "oops"}, {"content": "still no json"}, verdicts(True, False)]
    verdict = LLMRubricJudge("m", client=client_for(stub)).judge(c)
    assert len(stub.requests) == 4 and verdict.reward == 0.0
    assert verdict.rubrics[0].met is True and verdict.rubrics[1].met is False
    assert all("window 2/3: judge reply unreadable after one repair retry" in r.reason for r in verdict.rubrics)
    # in full mode nothing is judged at all: every rubric is "not judged", never passed
    stub.replies += [{"content": "no"}, {"content": "no"}]
    verdict = LLMRubricJudge("m", client=client_for(stub), mode="full").judge(case())
    assert verdict.reward == 0.0 and all(r.met is None and "not judged" in r.reason for r in verdict.rubrics)


def test_a_missing_rubric_verdict_is_never_a_pass(stub):
    stub.replies.append({"content": json.dumps([{"rubric_idx": 1, "met": True, "justification": "ok"}])})
    verdict = LLMRubricJudge("m", client=client_for(stub), mode="full").judge(case())
    assert verdict.reward == 0.0 and verdict.rubrics[1].met is None


def test_truncated_output_is_read_in_part_then_repaired(stub):
    cut = '[{"rubric_idx": 1, "met": true, "justification": "ok"}, {"rubric_idx": 2, "me'
    stub.replies.append({"content": cut, "finish_reason": "length"})
    verdict = LLMRubricJudge("m", client=client_for(stub), mode="full").judge(case())
    assert len(stub.requests) == 1 and verdict.reward == 0.0
    assert verdict.rubrics[0].met is True and verdict.rubrics[1].met is None
    assert any("cut off" in note for note in verdict.details["notes"])
    stub.replies += [{"content": '[{"rubric_idx": 1, "me', "finish_reason": "length"}, verdicts(True, True)]
    verdict = LLMRubricJudge("m", client=client_for(stub), mode="full").judge(case())
    assert verdict.reward == 1.0
    assert "token limit" in stub.requests[-1]["messages"][-1]["content"]


def test_dispatch_rules(stub):
    judge = LLMRubricJudge("m", client=client_for(stub))
    verdict = judge.judge(case(termination="max_steps"))
    assert verdict.reward == 0.0 and all(r.met is None and "max_steps" in r.reason for r in verdict.rubrics)
    assert judge.judge(case(termination="invalid_agent_message")).reward == 0.0
    no_criteria = judge.judge(case(sub=subtask(evaluation_criteria=None, rubric_checks=None)))
    assert no_criteria.not_judgeable and no_criteria.rubrics == []
    empty = judge.judge(case(sub=subtask(evaluation_criteria={"overall_rubrics": []}, rubric_checks=None)))
    assert empty.not_judgeable and empty.reward == 0.0  # never the official free 1.0
    assert stub.requests == []


def test_votes_take_the_per_rubric_majority_with_distinct_cache_seeds(stub, tmp_path):
    client = client_for(stub, cache="judge", cache_dir=tmp_path / "cache")
    judge = make_judge("m", client=client, mode="full", votes=3)
    stub.replies += [verdicts(True, True), verdicts(True, False), verdicts(False, False)]
    verdict = judge.judge(case(seed=7))
    assert [r.met for r in verdict.rubrics] == [True, False] and verdict.reward == 0.0
    assert verdict.rubrics[0].reason.startswith("2/3 votes met")
    assert all(body["temperature"] == 0.7 and "seed" not in body for body in stub.requests)
    # the same trial again: every vote from the cache, in order; another trial: fresh samples
    assert [r.met for r in judge.judge(case(seed=7)).rubrics] == [True, False] and len(stub.requests) == 3
    stub.replies += [verdicts(True, True)] * 3
    assert judge.judge(case(seed=8)).reward == 1.0 and len(stub.requests) == 6
    two = make_judge("m", client=client_for(stub), mode="full", votes=2)
    stub.replies += [verdicts(True, True), verdicts(False, True)]
    assert [r.met for r in two.judge(case()).rubrics] == [False, True]  # a tie is unmet


def test_outcome_reward_is_the_min_of_trajectory_and_outcome(stub):
    judge = make_judge("m", client=client_for(stub), mode="full", outcome=True)
    outcome_reply = {"content": json.dumps([
        {"rubric_idx": 1, "rubric": R2, "applicable": True, "met": False, "justification": "wrong shop"}])}
    stub.replies += [verdicts(True, True), outcome_reply]
    verdict = judge.judge(case())
    assert verdict.details["trajectory_reward"] == 1.0 and verdict.details["outcome"]["reward"] == 0.0
    assert verdict.reward == 0.0
    assert [(r.kind, r.text, r.met) for r in verdict.rubrics][-1] == ("outcome", f"[outcome] {R2}", False)
    outcome_request = user_content(stub.requests[1])
    assert "create_delivery_order(" in outcome_request and '"status": "paid"' in outcome_request
    assert "Quiet Noodles" in outcome_request and "target" not in outcome_request
    assert "1. The order is paid" in outcome_request and R1 not in outcome_request  # overall rubrics only
    # a rubric the outcome cannot show is set aside instead of failing the item
    stub.replies += [verdicts(True, True), {"content": json.dumps([
        {"rubric_idx": 1, "applicable": False, "met": True, "justification": "about the dialogue"}])}]
    verdict = judge.judge(case())
    assert verdict.reward == 1.0 and "not about the outcome" in verdict.rubrics[-1].reason


def test_outcome_without_a_write_or_with_only_failed_writes(stub):
    judge = make_judge("m", client=client_for(stub), mode="full", outcome=True)
    stub.replies.append(verdicts(True, True))
    verdict = judge.judge(case(write=False))
    assert verdict.reward == 1.0 and verdict.details["outcome"]["has_action"] is False
    assert len(stub.requests) == 1  # no outcome call without an action
    c = case(write=False)
    c.messages.insert(-1, Message(role="assistant", tool_calls=[ToolCall(
        id="w", name="create_delivery_order", arguments={"user_id": "U1"})]))
    c.messages.insert(-1, Message(role="tool", tool_call_id="w", name="create_delivery_order",
                                  content="Error: missing required argument(s)", error=True))
    stub.replies.append(verdicts(True, True))
    verdict = judge.judge(c)
    assert verdict.reward == 0.0 and len(stub.requests) == 2
    assert "none succeeded" in verdict.rubrics[-1].reason


def test_outcome_judge_unreadable_reply_is_not_judged_and_scores_zero(stub):
    judge = make_judge("m", client=client_for(stub), mode="full", outcome=True)
    stub.replies += [verdicts(True, True), {"content": "nope"}, {"content": "nope"}]
    verdict = judge.judge(case())
    assert verdict.reward == 0.0 and verdict.rubrics[-1].met is None
    assert any("outcome judge" in p for p in verdict.details["problems"])


def test_rate_limits_are_retried_and_failures_raise(stub):
    stub.replies += [(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"}), verdicts(True, True)]
    client = client_for(stub)
    assert LLMRubricJudge("m", client=client, mode="full").judge(case()).reward == 1.0
    assert client.ledger.retries("judge") == 1
    stub.replies += [(500, {"error": {"message": "boom"}})] * 3
    with pytest.raises(LLMError, match="judge LLM call .* HTTP 500"):
        LLMRubricJudge("m", client=client, mode="full").judge(case())


def test_a_slow_judge_times_out_as_an_infrastructure_error(stub):
    stub.replies.append(Reply(message=verdicts(True, True), delay=1.0))
    client = client_for(stub, timeout_s=0.2, max_retries=0)
    with pytest.raises(LLMError, match="timed out"):
        LLMRubricJudge("m", client=client, mode="full").judge(case())


def test_chinese_prompts(stub):
    stub.replies.append(verdicts(True, True))
    LLMRubricJudge("m", client=client_for(stub), mode="window", language="zh").judge(case())
    body = stub.requests[0]
    assert "评审" in body["messages"][0]["content"] and "窗口" in body["messages"][0]["content"]
    assert "[1] 助手: " in user_content(body) and "星期日" in user_content(body)


def test_make_judge_wiring(stub):
    assert type(make_judge("rules")).__name__ == "RulesJudge"
    with pytest.raises(ValueError, match="needs an LLM client"):
        make_judge("gpt-4.1")
    with pytest.raises(ValueError, match="window, full"):
        make_judge("gpt-4.1", client=client_for(stub), mode="sideways")
    with pytest.raises(ValueError, match="at least 1"):
        make_judge("gpt-4.1", client=client_for(stub), votes=0)
    with pytest.raises(ValueError, match="need an LLM judge"):
        make_judge("rules", outcome=True)
    judge = make_judge("gpt-4.1", client=client_for(stub), mode="full", votes=3, outcome=True, language="zh")
    assert (judge.mode, judge.votes, judge.language, judge.outcome is not None) == ("full", 3, "zh", True)


def test_facts_show_changed_history_records_and_leave_unchanged_ones_out():
    first = case(pay=False)
    created = json.loads(next(m.text for m in first.messages if m.role == "tool"))
    order = {k: v for k, v in created.items() if k != "store_name"}
    sub = subtask(environment={**subtask().environment, "orders": {order["order_id"]: order}})
    env = build_environment("delivery", sub.environment, user_id="U1", time=TIME, seed=1)
    assert record_facts(env, sub, TIME) == []  # untouched history is noise to a judge
    env.call("cancel_delivery_order", {"order_id": order["order_id"]})
    [fact] = record_facts(env, sub, TIME)
    assert fact["status"] == "cancelled" and fact["created_in_conversation"] is False
