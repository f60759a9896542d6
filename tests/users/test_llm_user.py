"""The LLM user simulator over real HTTP against the stub server, alone and inside a whole episode."""

from __future__ import annotations

import pytest
from _stub_llm import StubLLM, tool_call
from _suites import tiny_suite

from pytest_vitabench.agents.base import AgentSetup
from pytest_vitabench.agents.openai_agent import OpenAIAgent
from pytest_vitabench.domains import build_environment
from pytest_vitabench.domains.base import WRITE_KINDS
from pytest_vitabench.llm import LLMClient, LLMError, LLMSettings
from pytest_vitabench.messages import STOP_TOKEN, Message, ToolCall
from pytest_vitabench.run.episode import run_episode
from pytest_vitabench.users import make_user_simulator
from pytest_vitabench.users.base import UserSetup, UserSimulator
from pytest_vitabench.users.llm_user import NUDGE, LLMUser, user_system_prompt

GREETING = Message(role="assistant", content="Hello, how can I help you?")
SETUP = UserSetup(instruction="Order me a bowl of noodles for lunch.", user_id="U1", seed=42,
                  persona={"user_id": "U1", "city": "Beijing", "family": ["wife", "son"]})
PROACTIVE = UserSetup(instruction="Book a table this weekend.", user_id="U1", proactive=True,
                      user_intention="There will be 5 of us, Saturday 6:30 pm.")


def client_for(stub: StubLLM, **overrides) -> LLMClient:
    settings = dict(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", backoff_base_s=0.01,
                    backoff_max_s=0.02, max_retries=2, cache="off")
    settings.update(overrides)
    return LLMClient(LLMSettings(**settings))


def history(*agent_texts: str) -> list[Message]:
    messages = [GREETING, Message(role="user", content=SETUP.instruction)]
    for text in agent_texts:
        messages.append(Message(role="assistant", content=text))
    return messages


def test_factory_and_first_turn_without_a_call(stub):
    user = make_user_simulator("gpt-user", client=client_for(stub), wait_for_action=True)
    assert isinstance(user, LLMUser) and isinstance(user, UserSimulator) and user.wait_for_action
    with pytest.raises(ValueError, match="needs an LLM client"):
        make_user_simulator("gpt-user")
    first = user.respond(SETUP, [GREETING])
    assert first.text == SETUP.instruction and first.usage is None and stub.requests == []


def test_later_turns_flip_roles_and_never_show_tools(stub):
    stub.replies.append({"content": "Anything is fine."})
    client = client_for(stub)
    messages = history("Sure.") + [
        Message(role="assistant", content="Checking stores for you.",
                tool_calls=[ToolCall(id="c1", name="delivery_store_search_recommand", arguments={"keywords": ["x"]})]),
        Message(role="tool", tool_call_id="c1", name="delivery_store_search_recommand", content="SECRET-TOOL-OUTPUT"),
        Message(role="assistant", content="Any flavour you like?"),
    ]
    reply = LLMUser("u-model", client=client).respond(SETUP, messages)
    assert reply.role == "user" and reply.text == "Anything is fine." and reply.usage.requests == 1
    body = stub.requests[0]
    assert body["model"] == "u-model" and body["seed"] == 42 and body["temperature"] == 0.0 and "tools" not in body
    roles = [(m["role"], m["content"]) for m in body["messages"][1:]]
    assert roles == [("user", "Hello, how can I help you?"), ("assistant", SETUP.instruction), ("user", "Sure."),
                     ("user", "Any flavour you like?")]
    assert "SECRET-TOOL-OUTPUT" not in str(body) and "Checking stores" not in str(body)
    system = body["messages"][0]["content"]
    assert SETUP.instruction in system and "give your user ID: U1" in system and "- family: wife, son" in system
    assert "###STOP###" in system and "proactive_info" not in system
    assert client.ledger.by_role()["user"].requests == 1


def test_proactive_section_only_with_an_intention_and_in_chinese():
    prompt = user_system_prompt(PROACTIVE)
    assert "<proactive_info>There will be 5 of us, Saturday 6:30 pm.</proactive_info>" in prompt
    assert "directly related" in prompt
    assert "proactive_info" not in user_system_prompt(UserSetup(instruction="x", user_id="U1", proactive=True))
    chinese = UserSetup(instruction="帮我点份面", user_id="U9", language="zh", persona={"家庭": ["妻子", "儿子"]})
    zh = user_system_prompt(chinese, wait_for_action=True)
    assert "你是顾客" in zh and "U9" in zh and "家庭: 妻子、儿子" in zh and "不要结束对话" in zh


def test_premature_stop_is_replaced_by_a_nudge_at_most_twice(stub):
    user = LLMUser("u", client=client_for(stub), wait_for_action=True)
    stub.replies.append({"content": f"Yes, that one. {STOP_TOKEN}"})
    messages = history("I recommend Quiet Noodles' beef noodles. Shall I order?")
    reply = user.respond(SETUP, messages)
    assert STOP_TOKEN not in reply.text and reply.text == f"Yes, that one. {NUDGE['en']}"
    assert "Do not end the conversation while the assistant is only proposing" in stub.requests[0]["messages"][0][
        "content"]
    messages += [reply, Message(role="assistant", content="Great choice!")]
    stub.replies.append({"content": STOP_TOKEN})
    second = user.respond(SETUP, messages)
    assert second.text == NUDGE["en"]
    messages += [second, Message(role="assistant", content="Okay.")]
    stub.replies.append({"content": STOP_TOKEN})
    assert user.respond(SETUP, messages).has_stop()  # bounded: the third stop goes through


@pytest.mark.parametrize("error", [False, True])
def test_stop_goes_through_once_a_write_completed_or_was_refused(stub, error):
    user = LLMUser("u", client=client_for(stub), wait_for_action=True)
    messages = history() + [
        Message(role="assistant", tool_calls=[ToolCall(id="w", name="create_delivery_order", arguments={})]),
        Message(role="tool", tool_call_id="w", name="create_delivery_order", content="...", error=error),
        Message(role="assistant", content="Done."),
    ]
    stub.replies.append({"content": f"Thanks! {STOP_TOKEN}"})
    assert user.respond(SETUP, messages).has_stop()
    # the environment's own list of write tools wins over the name guess
    only_pay = UserSetup(instruction="x", user_id="U1", write_tools=frozenset({"pay_delivery_order"}))
    stub.replies.append({"content": f"Thanks! {STOP_TOKEN}"})
    assert not user.respond(only_pay, messages).has_stop()


def test_without_the_option_a_premature_stop_stands(stub):
    stub.replies.append({"content": f"Sounds good. {STOP_TOKEN}"})
    assert LLMUser("u", client=client_for(stub)).respond(SETUP, history("Shall I order?")).has_stop()
    assert "only proposing" not in stub.requests[0]["messages"][0]["content"]


def test_hidden_scenario_writes_its_own_first_message(stub):
    hidden = UserSetup(instruction="It's raining; you want mild rice noodles delivered to the hospital.",
                       user_id="U000001", scenario_is_hidden=True)
    stub.replies.append({"content": "<think>keep it short</think>Hi, can you get me some rice noodles?"})
    first = LLMUser("u", client=client_for(stub)).respond(hidden, [GREETING])
    assert first.text == "Hi, can you get me some rice noodles?"
    body = stub.requests[0]
    assert "the assistant knows none of it" in body["messages"][0]["content"]
    assert "mild rice noodles" in body["messages"][0]["content"]
    assert body["messages"][1:] == [{"role": "user", "content": "Hello, how can I help you?"}]


def test_empty_replies_are_asked_again_once_then_a_neutral_reply(stub):
    user = LLMUser("u", client=client_for(stub))
    stub.replies += [{"content": ""}, {"content": "Fine."}]
    assert user.respond(SETUP, history("Which one?")).text == "Fine."
    stub.replies += [{"content": None}, {"content": "   "}]
    reply = user.respond(SETUP, history("Which one?"))
    assert reply.text == "Okay." and reply.usage.requests == 2 and len(stub.requests) == 4


def test_endpoint_failures(stub):
    stub.replies += [(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"}), {"content": "Ok."}]
    client = client_for(stub)
    assert LLMUser("u", client=client).respond(SETUP, history("Which one?")).text == "Ok."
    assert client.ledger.retries("user") == 1
    stub.replies += [(500, {"error": {"message": "boom"}})] * 3
    with pytest.raises(LLMError, match="user LLM call"):
        LLMUser("u", client=client).respond(SETUP, history("Which one?"))


def test_whole_episode_agent_and_user_over_http_with_wait_for_action(stub):
    """OpenAIAgent and LLMUser share one stub endpoint: malformed tool JSON, a premature stop, then the order."""
    sub = tiny_suite()[0]["subtasks"][0]
    env = build_environment("delivery", sub["environment"], user_id="U1", time="2025-06-01 11:00:00", seed=3)
    client = client_for(stub)
    order = {"user_id": "U1", "store_id": "S2", "product_ids": ["P2"], "product_cnts": [1],
             "address": "No. 1 Test Road, Home", "dispatch_time": "2025-06-01 11:00:00"}
    stub.replies += [
        {"content": "I suggest Quiet Noodles' beef noodles without cilantro. Shall I order?"},  # agent
        {"content": f"Yes. {STOP_TOKEN}"},  # user stops before anything was ordered -> nudged
        {"content": None, "tool_calls": [tool_call("a1", "create_delivery_order", '{"user_id": "U1", ')]},  # bad JSON
        {"content": None, "tool_calls": [tool_call("a2", "create_delivery_order", order)]},  # agent
        {"content": "Your order is placed."},  # agent
        {"content": f"Thanks! {STOP_TOKEN}"},  # user: a write has completed, so the stop stands
    ]
    agent = OpenAIAgent("agent-m", client=client)
    user = make_user_simulator("user-m", client=client, wait_for_action=True)
    setup = AgentSetup(system_prompt="SYSTEM", tools=env.tool_schemas(), memory="", time="t", seed=3)
    user_setup = UserSetup(instruction="Order me a bowl of noodles for lunch.", user_id="U1", seed=3,
                           write_tools=frozenset(n for n, t in env.tools.items() if t.kind in WRITE_KINDS))
    result = run_episode(agent=agent, agent_setup=setup, user=user, user_setup=user_setup, environment=env)
    assert result.termination == "user_stop"
    user_turns = [m.text for m in result.messages if m.role == "user"]
    assert user_turns == ["Order me a bowl of noodles for lunch.", f"Yes. {NUDGE['en']}", f"Thanks! {STOP_TOKEN}"]
    assert result.tool_errors == 1 and [r["product_ids"] for r in env.records() if r["new"]] == [["P2"]]
    assert [b["model"] for b in stub.requests] == ["agent-m", "user-m", "agent-m", "agent-m", "agent-m", "user-m"]
    assert result.usage["user"].requests == 2 and result.usage["agent"].requests == 4
