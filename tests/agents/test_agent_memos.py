"""The built-in agent's one memo: a remembered ranking is the one a fresh agent makes."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.agents import make_builtin_agent
from pytest_vitabench.agents.candidates import Candidate, relevance
from pytest_vitabench.agents.trajectory import call_key
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.text.words import tokenize
from pytest_vitabench.users.scripted import ScriptedUser

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"


@pytest.mark.parametrize("args", [
    {"store_id": "S1"}, {"a": 1}, {"a": 1.0}, {"a": True}, {"a": None, "b": "x"}, {"b": "x", "a": None},
    {"keywords": ["milk", "tea"]}, {"a": {"b": 1}}, {1: "x"}, "raw arguments", {"名字": "奶茶"},
])
def test_call_keys_are_the_sorted_json_of_the_arguments(args):
    expected = "t" + json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
    assert call_key("t", args) == expected


def test_call_keys_keep_equal_numbers_of_other_types_apart():
    keys = {call_key("t", {"a": value}) for value in (1, 1.0, True, "1")}
    assert len(keys) == 4


@pytest.mark.parametrize("entity, product", [
    ({"name": "Joe's Diner", "tags": ["don't miss", "non-smoking"], "description": "Rated 4.5, open late"},
     {"product_id": "P1", "name": "Latte (oat milk)", "tags": "iced, less sugar", "attributes": "v2. 5 stars"}),
    ({"shop_name": "茶颜悦色 Tea", "tags": ["奶茶", "can't stop"], "description": None},
     {"product_id": "P2", "room_type": "Room/High Floor;Smoking", "price": 10}),
    ({"hotel_name": "Blue", "tags": []}, None),
])
def test_candidate_text_tokens_are_the_tokens_of_its_text(entity, product):
    candidate = Candidate("E1", entity, product, 0)
    assert candidate.text_tokens() == set(tokenize(candidate.text()))
    assert candidate.phrase_tokens() == set(tokenize(" ".join(candidate.phrases())))
    words = set(tokenize(candidate.text())) | {"absent"}
    assert relevance(candidate, words) == len(words) - 1


def _run(runner: ItemRunner, suite, agent, job: tuple[int, int, str]) -> list[dict]:
    user_index, index, memory = job
    user = suite.users[user_index]
    assert user.task is not None, user.error
    sub = user.task.subtasks[index]
    result = runner.run(nodeid=f"{user.key}::{sub.subtask_id}[{memory}-t0]", suite=suite, user=user, index=index,
                        memory_name=memory, trial=0, agent=agent, user_simulator=ScriptedUser(), judge=RulesJudge())
    assert result.outcome != "error", result.error
    return [m.model_dump(exclude={"usage"}) for m in result.messages]


def _episodes(order: list[tuple[int, int, str]], agent=None) -> dict[tuple[int, int, str], list[dict]]:
    """Each job's conversation: with one agent for all of them, or a new agent (an empty memo of rankings) for each."""
    runner = ItemRunner(RunConfig(model="reference", memory=["none", "groundtruth", "full_context"], trials=1))
    suite = runner.suite(DEMO)
    return {job: _run(runner, suite, agent or make_builtin_agent("reference"), job) for job in order}


def _demo_jobs() -> list[tuple[int, int, str]]:
    suite = ItemRunner(RunConfig()).suite(DEMO)
    return [(u, i, memory) for u, user in enumerate(suite.users) for i in range(len(user.task.subtasks))
            for memory in ("none", "groundtruth", "full_context")]


@pytest.mark.slow
def test_one_agent_in_any_order_has_the_conversations_of_fresh_agents():
    """Every item of the demo under three memories: a new agent for each item, and one agent for all of them
    in suite order and in reverse (other users' and other memories' choices in its memo)."""
    order = _demo_jobs()
    fresh = _episodes(order)
    shared = make_builtin_agent("reference")
    assert _episodes(order, shared) == fresh
    assert _episodes(order[::-1], shared) == fresh
    assert len(shared._rankings) <= shared.remembered_rankings
    # the memories lead to different conversations, so a memo keyed too loosely would have shown
    assert any(fresh[u, i, "none"] != fresh[u, i, "full_context"] for u, i, _ in order)


@pytest.mark.slow
def test_one_agent_serves_episodes_in_threads():
    order = _demo_jobs()[:24]
    fresh = _episodes(order)
    shared = make_builtin_agent("reference")
    shared.remembered_rankings = 4  # evictions while other threads read

    def episode(job: tuple[int, int, str]) -> list[dict]:
        # A runner per episode: the engine never runs one user's items at once on one runner (a user's memory
        # chain is sequential), so only the agent is shared between the threads here.
        runner = ItemRunner(RunConfig(model="reference", memory=["none", "groundtruth", "full_context"], trials=1))
        return _run(runner, runner.suite(DEMO), shared, job)

    with ThreadPoolExecutor(4) as pool:
        got = dict(zip(order * 2, pool.map(episode, order * 2), strict=True))
    assert got == fresh


def test_a_memory_extended_line_by_line_reads_as_one_read_whole():
    """The agent extends the memory it kept when the history grows: the clauses, thresholds and index are those
    of the whole text read at once."""
    from pytest_vitabench.text.preferences import PreferenceMemory

    lines = [line for user in json.loads(DEMO.read_text(encoding="utf-8")) for sub in user["subtasks"]
             for line in json.dumps(sub["interactions"], ensure_ascii=False).split("},")]
    head, tail = "\n".join(lines[: len(lines) // 2]), "\n".join(lines[len(lines) // 2:])
    whole = PreferenceMemory(head + "\n" + tail, ["allergies: peanut allergy"])
    grown = PreferenceMemory(head, ["allergies: peanut allergy"])
    grown.extend(tail)
    assert whole.clauses and grown.clauses == whole.clauses and grown.thresholds == whole.thresholds
    assert grown._index == whole._index
