"""The suite's language drives prompts and the simulator (unless --vita-language), and message_history seeds
the conversation as in the official orchestrator."""

from __future__ import annotations

import copy

import pytest
from _paths import VB1_DIR, VB1_SKIP_REASON
from _suites import delivery_subtask, tiny_suite, write_suite

from pytest_vitabench.agents.base import AgentSetup
from pytest_vitabench.domains import build_environment
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.messages import Message, ToolCall
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.episode import run_episode
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.run.seed_history import HistoryError, seed_messages
from pytest_vitabench.suite.language import text_language
from pytest_vitabench.users.base import UserSetup


class Recorder:
    """An agent that records its setup and stops."""

    def __init__(self):
        self.setups: list[AgentSetup] = []
        self.seen: list[list[Message]] = []

    def respond(self, setup, messages):
        self.setups.append(setup)
        self.seen.append(list(messages))
        return Message(role="assistant", content="OK ###STOP###")


class Echo:
    def __init__(self):
        self.setups: list[UserSetup] = []

    def respond(self, setup, messages):
        self.setups.append(setup)
        return Message(role="user", content="fine ###STOP###")


def chinese_suite():
    data = copy.deepcopy(tiny_suite())
    for user in data:
        for sub in user["subtasks"]:
            sub["instruction"] = "帮我点一份午饭吃的面"
            sub["evaluation_criteria"] = {"overall_rubrics": ["订单中的商品是不含香菜的牛肉面", "订单已支付"]}
    return data


def run_one(runner: ItemRunner, path, agent, user=None):
    suite = runner.suite(path)
    return runner.run(nodeid="n", suite=suite, user=suite.users[0], index=0, memory_name="none", trial=0,
                      agent=agent, user_simulator=user or Echo(), judge=RulesJudge())


def test_text_language():
    assert text_language(["帮我点个外卖", "Order ID S1"]) == "zh"
    assert text_language(["Order me a bowl of noodles", "香菜"]) == "en"
    assert text_language(["", "123"]) is None


def test_a_chinese_suite_gets_chinese_prompts_by_default(tmp_path):
    path = write_suite(tmp_path / "tasks.json", chinese_suite())
    runner = ItemRunner(RunConfig(memory=["none"]))
    agent = Recorder()
    result = run_one(runner, path, agent)
    assert runner.language_for(runner.suite(path)) == "zh"
    assert agent.setups[0].language == "zh" and "当前时间" in agent.setups[0].system_prompt
    assert result.messages[0].content == "您好，请问有什么可以帮您？"
    assert not runner.suite(path).warnings or all("mix languages" not in w for w in runner.suite(path).warnings)


def test_an_explicit_language_wins_and_a_mismatch_is_a_warning(tmp_path):
    path = write_suite(tmp_path / "tasks.json", chinese_suite())
    runner = ItemRunner(RunConfig(memory=["none"], language="en"))
    agent = Recorder()
    run_one(runner, path, agent)
    assert agent.setups[0].language == "en"
    assert any("--vita-language en" in w and "'zh'" in w for w in runner.suite(path).warnings)
    english = write_suite(tmp_path / "en.json", tiny_suite())
    assert ItemRunner(RunConfig(memory=["none"])).language_for(ItemRunner(RunConfig()).suite(english)) == "en"


@pytest.mark.skipif(not VB1_DIR.exists(), reason=VB1_SKIP_REASON)
@pytest.mark.parametrize("name, language", [("delivery_tasks_zh.json", "zh"), ("delivery_tasks_en.json", "en")])
def test_real_vitabench1_files_are_detected(name, language):
    runner = ItemRunner(RunConfig(memory=["none"]))
    assert runner.language_for(runner.suite(VB1_DIR / name)) == language


def test_message_history_seeds_the_conversation(tmp_path):
    data = copy.deepcopy(tiny_suite())
    data[0]["subtasks"][0]["message_history"] = [
        {"role": "assistant", "content": "Hi, what can I do for you?", "turn_idx": 0},
        {"role": "user", "content": "Noodles again please.", "turn_idx": 1},
        {"role": "assistant", "content": None, "turn_idx": 2, "tool_calls": [
            {"id": "h1", "name": "delivery_store_search_recommand", "arguments": {"keywords": ["noodles"]},
             "requestor": "assistant"}]},
    ]
    path = write_suite(tmp_path / "tasks.json", data)
    agent = Recorder()
    result = run_one(ItemRunner(RunConfig(memory=["none"])), path, agent)
    first = agent.seen[0]
    # no greeting, no verbatim instruction: the history, then the pending call's result, then the agent
    assert [m.role for m in first] == ["assistant", "user", "assistant", "tool"]
    assert first[1].content == "Noodles again please." and "Quiet Noodles" in first[3].content
    assert result.messages[:3] == first[:3] and result.termination == "agent_stop"


def test_history_ending_with_the_agent_lets_the_user_speak_first():
    sub = delivery_subtask("s1")
    env = build_environment("delivery", sub["environment"], user_id="U1", time=sub["environment"]["time"], seed=1)
    agent, user = Recorder(), Echo()
    history = seed_messages([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "What now?"}])
    episode = run_episode(agent=agent, agent_setup=AgentSetup(system_prompt="", tools=[], memory="", time=""),
                          user=user, user_setup=UserSetup(instruction="x", user_id="U1"), environment=env,
                          history=history)
    assert [m.role for m in episode.messages] == ["user", "assistant", "user"] and episode.termination == "user_stop"
    assert agent.seen == []


@pytest.mark.parametrize("history, message", [
    (["just text"], "is not an object"),
    ([{"role": "system", "content": "x"}], "has role 'system'"),
    ([{"role": "assistant", "tool_calls": [{"arguments": {}}]}], "has no name"),
])
def test_bad_message_history_is_named(history, message):
    with pytest.raises(HistoryError, match=message):
        seed_messages(history)


def test_openai_shaped_history_tool_calls():
    [message] = seed_messages([{"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "weather", "arguments": '{"address": "Kunming"}'}}]}])
    assert message.tool_calls == [ToolCall(id="c", name="weather", arguments={"address": "Kunming"})]
