"""The built-in agents' memos: a remembered derivation is the one a fresh derivation gives."""

from __future__ import annotations

import json
import threading

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.agents import make_builtin_agent
from pytest_vitabench.agents.candidates import Candidate, relevance
from pytest_vitabench.agents.memo import Memo, clear_memos
from pytest_vitabench.agents.trajectory import call_key
from pytest_vitabench.config import RunConfig
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.runner import ItemRunner
from pytest_vitabench.text.words import tokenize
from pytest_vitabench.users.scripted import ScriptedUser

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"


def test_memo_derives_once_per_key_and_drops_the_least_recently_used():
    memo: Memo[str, list[str]] = Memo(2)
    derived: list[str] = []

    def derive(key: str) -> list[str]:
        derived.append(key)
        return [key]

    first = memo.get("a", lambda: derive("a"))
    assert memo.get("a", lambda: derive("a")) is first and derived == ["a"]
    memo.get("b", lambda: derive("b"))
    memo.get("a", lambda: derive("a"))  # "a" is now the most recent: "b" goes first
    memo.get("c", lambda: derive("c"))
    assert len(memo) == 2
    memo.get("a", lambda: derive("a"))
    memo.get("b", lambda: derive("b"))
    assert derived == ["a", "b", "c", "b"]
    clear_memos()
    assert len(memo) == 0


def test_memo_serves_threads():
    memo: Memo[int, int] = Memo(8)
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for n in range(2000):
                key = (n + offset) % 20
                assert memo.get(key, lambda k=key: k * k) == key * key
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(memo) <= 8


@pytest.mark.parametrize("args", [
    {"store_id": "S1"}, {"a": 1}, {"a": 1.0}, {"a": True}, {"a": None, "b": "x"}, {"b": "x", "a": None},
    {"keywords": ["milk", "tea"]}, {"a": {"b": 1}}, {1: "x"}, "raw arguments", {"名字": "奶茶"},
])
def test_call_keys_are_the_sorted_json_of_the_arguments(args):
    expected = "t" + json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
    assert call_key("t", args) == expected
    assert call_key("t", args) == expected  # memoised the second time: still the same


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


def _episodes(order: list[tuple[int, int, str]], cold: bool) -> dict[tuple[int, int, str], list[dict]]:
    runner = ItemRunner(RunConfig(model="reference", memory=["none", "groundtruth", "full_context"], trials=1))
    suite = runner.suite(DEMO)
    agent, user_sim, judge = make_builtin_agent("reference"), ScriptedUser(), RulesJudge()
    out = {}
    clear_memos()
    for user_index, index, memory in order:
        if cold:
            clear_memos()
        user = suite.users[user_index]
        assert user.task is not None, user.error
        sub = user.task.subtasks[index]
        result = runner.run(nodeid=f"{user.key}::{sub.subtask_id}[{memory}-t0]", suite=suite, user=user,
                            index=index, memory_name=memory, trial=0, agent=agent, user_simulator=user_sim,
                            judge=judge)
        assert result.outcome != "error", result.error
        out[user_index, index, memory] = [m.model_dump(exclude={"usage"}) for m in result.messages]
    return out


def test_warm_memos_in_any_order_give_the_conversations_of_cold_ones():
    """Every item of the demo under three memories: with the memos cleared before each item, and warm in
    suite order and in reverse (other users' and other memories' derivations in the memos)."""
    suite = ItemRunner(RunConfig()).suite(DEMO)
    order = [(u, i, memory) for u, user in enumerate(suite.users) for i in range(len(user.task.subtasks))
             for memory in ("none", "groundtruth", "full_context")]
    cold = _episodes(order, cold=True)
    assert _episodes(order, cold=False) == cold
    assert _episodes(order[::-1], cold=False) == cold
    # the memories lead to different conversations, so a memo keyed too loosely would have shown
    assert any(cold[u, i, "none"] != cold[u, i, "full_context"] for u, i, _ in order)
