"""``--vita-deviation episode=official``: the official orchestrator's stop and retry rules, next to ours."""

from __future__ import annotations

import pytest
from test_episode import SETUP, USER, Scripted, Talker, _env

from pytest_vitabench.messages import Message, ToolCall
from pytest_vitabench.official.behaviour import episode_rules
from pytest_vitabench.run.episode import MalformedToolCall, run_episode

ORDER = ToolCall(id="o1", name="get_delivery_store_info", arguments={"store_id": "S2"})


def _play(agent, style):
    return run_episode(agent=agent, agent_setup=SETUP, user=Talker(), user_setup=USER, environment=_env(),
                       rules=episode_rules(style))


def test_stop_next_to_tool_calls_ends_the_episode_before_the_tools_officially():
    reply = Message(role="assistant", content="Here you go. ###STOP###", tool_calls=[ORDER])
    official = _play(Scripted([reply]), "official")
    assert official.termination == "agent_stop"
    assert [m.role for m in official.messages] == ["assistant", "user", "assistant"]
    assert official.messages[-1].tool_calls == [ORDER]  # kept in the trajectory, never run
    ours = _play(Scripted([reply]), "default")
    assert [m.role for m in ours.messages][:4] == ["assistant", "user", "assistant", "tool"]


@pytest.mark.parametrize(("style", "attempts"), [("official", 3), ("default", 4)])
def test_attempts_at_a_valid_agent_message(style, attempts):
    empty = Message(role="assistant", content="  ")
    agent = Scripted([empty] * attempts + [Message(role="assistant", content="late ###STOP###")])
    result = _play(agent, style)
    assert result.termination == "invalid_agent_message" and len(agent.seen) == attempts
    rescued = Scripted([empty] * (attempts - 1) + [Message(role="assistant", content="ok ###STOP###")])
    assert _play(rescued, style).termination == "agent_stop"


def test_malformed_tool_arguments_crash_the_episode_officially_and_are_a_tool_error_by_default():
    broken = ToolCall(id="b", name="get_delivery_store_info", arguments='{"store_id": ')
    reply = Message(role="assistant", tool_calls=[ORDER, broken])
    with pytest.raises(MalformedToolCall, match="not a JSON object"):
        _play(Scripted([reply]), "official")
    ours = _play(Scripted([reply]), "default")
    assert [m.error for m in ours.messages if m.role == "tool"] == [False, True]


class Ordering:
    """Asks a store's details forever: every agent message is a tool call."""

    def respond(self, setup, messages):
        return Message(role="assistant", tool_calls=[ORDER])


@pytest.mark.parametrize("cap", [2, 3, 4, 5])
def test_the_step_cap_is_exact_officially_and_by_default(cap):
    # opening (1), agent call (2), tool results (3), agent call (4), ...: a call can land on the cap
    official = run_episode(agent=Ordering(), agent_setup=SETUP, user=Talker(), user_setup=USER, environment=_env(),
                           rules=episode_rules("official"), max_steps=cap)
    assert official.termination == "max_steps" and official.steps == cap
    assert len(official.messages) == 1 + cap  # the greeting, then one message per hop: a call at the cap never runs
    ours = run_episode(agent=Ordering(), agent_setup=SETUP, user=Talker(), user_setup=USER, environment=_env(),
                       max_steps=cap)
    assert ours.termination == "max_steps" and ours.steps == cap
    # ours runs a call made at the cap (the records show it), without counting its results as a hop
    assert ours.messages[-1].role == "tool"


def test_a_stop_on_the_last_step_is_the_cap_officially():
    def stop_late(setup, messages):
        return Message(role="user", content="thanks ###STOP###")

    class LateUser:
        respond = staticmethod(stop_late)

    chatty = Scripted([Message(role="assistant", content="Anything else?")] * 5)
    official = run_episode(agent=chatty, agent_setup=SETUP, user=LateUser(), user_setup=USER, environment=_env(),
                           rules=episode_rules("official"), max_steps=3)
    assert (official.termination, official.steps) == ("max_steps", 3)
    chatty = Scripted([Message(role="assistant", content="Anything else?")] * 5)
    ours = run_episode(agent=chatty, agent_setup=SETUP, user=LateUser(), user_setup=USER, environment=_env(),
                       max_steps=3)
    assert (ours.termination, ours.steps) == ("user_stop", 3)
