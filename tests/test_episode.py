"""The episode loop (:mod:`pytest_vitabench.run.episode`) with stub roles and a real delivery environment."""

from __future__ import annotations

import asyncio

from _suites import delivery_subtask

from pytest_vitabench.agents.base import AgentSetup
from pytest_vitabench.domains import build_environment
from pytest_vitabench.messages import Message, ToolCall
from pytest_vitabench.run.episode import run_episode
from pytest_vitabench.users.base import UserSetup


def _env():
    sub = delivery_subtask("s1")
    return build_environment("delivery", sub["environment"], user_id="U1", time=sub["environment"]["time"], seed=1)


SETUP = AgentSetup(system_prompt="", tools=[], memory="", time="")
USER = UserSetup(instruction="Order me noodles.", user_id="U1")


class Scripted:
    """Replies from a list, one per call; records what it saw."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.seen = []

    def respond(self, setup, messages):
        self.seen.append(list(messages))
        return self.replies.pop(0) if self.replies else Message(role="assistant", content="###STOP###")


class Talker:
    def __init__(self, text="ok"):
        self.text = text
        self.calls = 0

    def respond(self, setup, messages):
        self.calls += 1
        return Message(role="user", content=self.text)


def test_opens_with_greeting_then_verbatim_instruction_and_agent_stop():
    agent = Scripted([Message(role="assistant", content="Done. ###STOP###")])
    user = Talker()
    result = run_episode(agent=agent, agent_setup=SETUP, user=user, user_setup=USER, environment=_env())
    assert [m.role for m in result.messages] == ["assistant", "user", "assistant"]
    assert result.messages[0].content == "Hello, how can I help you?"
    assert result.messages[1].content == "Order me noodles."
    assert result.termination == "agent_stop" and result.steps == 2 and user.calls == 0


def test_tool_calls_go_to_the_environment_and_errors_are_counted():
    calls = [ToolCall(id="a", name="get_delivery_store_info", arguments={"store_id": "S2"}),
             ToolCall(id="b", name="no_such_tool", arguments={}),
             ToolCall(id="c", name="get_delivery_store_info", arguments='{"store_id": '),
             ToolCall(id="d", name="get_delivery_store_info", arguments={"store": "S2"})]
    agent = Scripted([Message(role="assistant", content="thinking aloud", tool_calls=calls)])
    result = run_episode(agent=agent, agent_setup=SETUP, user=Talker(), user_setup=USER, environment=_env())
    tools = [m for m in result.messages if m.role == "tool"]
    assert [t.tool_call_id for t in tools] == ["a", "b", "c", "d"]
    assert [t.error for t in tools] == [False, True, True, True]
    assert "Quiet Noodles" in tools[0].content
    assert result.tool_errors == 3
    # text sent with tool calls never reaches the user: the agent is asked again, not the user
    assert len(agent.seen) == 2 and agent.seen[1][-1].role == "tool"


def test_user_stop_tokens_end_the_episode():
    for token in ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"):
        agent = Scripted([Message(role="assistant", content="Anything else?")])
        result = run_episode(agent=agent, agent_setup=SETUP, user=Talker(f"no {token}"), user_setup=USER,
                             environment=_env())
        assert result.termination == "user_stop"


def test_max_steps_counts_every_hop():
    class Chatty:
        def respond(self, setup, messages):
            return Message(role="assistant", content="Tell me more?")

    result = run_episode(agent=Chatty(), agent_setup=SETUP, user=Talker(), user_setup=USER, environment=_env(),
                         max_steps=6)
    assert result.termination == "max_steps" and result.steps == 6
    assert len(result.messages) == 7  # greeting + 6 hops


def test_invalid_agent_messages_are_retried_three_times():
    agent = Scripted([Message(role="assistant", content=""), Message(role="assistant", content="  "),
                      Message(role="assistant", content="ok ###STOP###")])
    assert run_episode(agent=agent, agent_setup=SETUP, user=Talker(), user_setup=USER,
                       environment=_env()).termination == "agent_stop"
    agent = Scripted([Message(role="assistant", content="")] * 4)
    result = run_episode(agent=agent, agent_setup=SETUP, user=Talker(), user_setup=USER, environment=_env())
    assert result.termination == "invalid_agent_message" and len(agent.seen) == 4


def test_async_agents_are_awaited():
    class AsyncAgent:
        async def respond(self, setup, messages):
            await asyncio.sleep(0)
            return Message(role="assistant", content="async ###STOP###")

    result = run_episode(agent=AsyncAgent(), agent_setup=SETUP, user=Talker(), user_setup=USER, environment=_env())
    assert result.termination == "agent_stop" and result.messages[-1].content == "async ###STOP###"
