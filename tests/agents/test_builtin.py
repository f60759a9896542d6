"""The offline built-in agents (reference, literal, oracle) and the heuristics they share."""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest
from _paths import REPO_ROOT, VB1_DIR, VB1_SKIP_REASON

from pytest_vitabench.agents import BUILTIN_AGENTS, make_builtin_agent
from pytest_vitabench.agents.base import Agent, AgentSetup
from pytest_vitabench.agents.candidates import Candidate, CandidateScorer, candidate_phrase
from pytest_vitabench.domains import build_environment
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.messages import Message
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.synth.rubrics import ASK_COUNT_OR_TIME
from pytest_vitabench.text.facts import extract_facts
from pytest_vitabench.text.preferences import PreferenceMemory
from pytest_vitabench.text.words import content_words
from pytest_vitabench.users.scripted import ScriptedUser

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"


# ------------------------------------------------------------------------------------------ heuristics


def _history(*lines: tuple[str, str, object]) -> str:
    out = []
    for day, kind, content in lines:
        if kind == "dialogue":
            out.append(f"- [{day}] [dialogue] {content}")
        else:
            out.append(f"- [{day}] [{kind}] {json.dumps(content)}")
    return "\n".join(out)


def test_the_latest_evidence_wins_so_drift_is_honoured():
    before = ("2025-01-02", "dialogue", "user: A latte with whole milk please | assistant: Sure.")
    after = ("2025-03-01", "dialogue", "user: No more whole milk for me, switch me to oat milk from now on. "
                                       "| assistant: Got it.")
    memory = PreferenceMemory(_history(before, after))
    assert memory.polarity("whole milk")[0] == -1
    assert memory.polarity("oat milk")[0] == 1
    assert PreferenceMemory(_history(after, before)).polarity("whole milk")[0] == 1


@pytest.mark.parametrize("statement, phrase, expected", [
    ("I really can't stand cilantro.", "cilantro", -1),
    ("Please avoid spicy food.", "spicy", -1),
    ("I'm allergic to mango.", "mango", -1),
    ("mango allergy", "mango", -1),
    ("The cake was too sweet.", "sweet", -1),
    ("I switched from whole milk to oat milk.", "whole milk", -1),
    ("I switched from whole milk to oat milk.", "oat milk", 1),
    ("Non-smoking rooms only.", "smoking", -1),
    ("Quiet hotels, high floor rooms.", "high floor", 1),
    ("I quit smoking last month.", "smoking", -1),
    ("Not a fan of durian.", "durian", -1),
])
def test_negation_cues(statement, phrase, expected):
    assert PreferenceMemory(statement).polarity(phrase)[0] == expected


def test_browsing_assistant_turns_and_orders_for_someone_else_are_not_evidence():
    text = _history(
        ("2025-01-01", "search", {"keyword": "durian cake"}),
        ("2025-01-02", "browse", {"topic": "durian desserts"}),
        ("2025-01-03", "dialogue", "user: Something sweet please | assistant: How about our durian cake?"),
        ("2025-01-04", "order", {"merchant_name": "Cake Lab", "items": [{"product_name": "Durian Cake"}],
                                 "note": "for my husband"}),
        ("2025-01-05", "dialogue", "user: Get a durian crepe for my colleague Li. | assistant: Done."),
    )
    assert PreferenceMemory(text).polarity("durian") is None


def test_orders_and_reviews_are_evidence_and_a_low_rating_is_negative():
    text = _history(
        ("2025-01-01", "order", {"items": [{"product_name": "Matcha Latte"}], "tags": ["matcha", "no sugar"]}),
        ("2025-01-02", "review", {"rating": 1, "text": "The cheese foam was awful."}),
    )
    memory = PreferenceMemory(text)
    assert memory.polarity("matcha")[0] == 1
    assert memory.polarity("sugar")[0] == -1
    assert memory.polarity("cheese foam")[0] == -1


def test_groundtruth_tag_format_and_thresholds():
    text = ("### User preference tags\n[Food & drink]\n  - oat milk in coffee\n  - keeps weekday lunch under "
            "40 yuan\n[Travel]\n  - only orders from merchants rated at least 4.5\n")
    memory = PreferenceMemory(text)
    assert memory.polarity("oat milk")[0] == 1 and memory.polarity("food") is None
    assert memory.threshold("max_price", {"lunch"}) == 40
    assert memory.threshold("max_price", {"hotel"}) is None
    assert memory.threshold("min_score", {"hotel"}) == 4.5  # "merchants" applies to any merchant


@pytest.mark.parametrize("phrase, expected", [
    ("non-smoking", (-1, "smoking")), ("no window", (-1, "window")), ("gluten-free", (-1, "gluten")),
    ("less sugar", (1, "less sugar")), ("quiet", (1, "quiet")),
])
def test_candidate_side_negation(phrase, expected):
    assert candidate_phrase(phrase) == expected


NOW = datetime(2025, 6, 12, 11, 0)  # a Thursday


@pytest.mark.parametrize("text, count, day, clock", [
    ("There will be 5 of us, this Saturday at 6:30 pm.", 5, "2025-06-14", "18:30"),
    ("There will be 8 guests, next Tuesday at 6 pm.", 8, "2025-06-17", "18:00"),
    ("We want to go this Saturday, the three of us.", 3, "2025-06-14", None),
    ("Book me a flight to Beijing on April 18.", None, "2026-04-18", None),
    ("Book me a hotel for tomorrow night.", None, "2025-06-13", None),
    ("Eating will only take 30 minutes, surgery at 13:30.", None, None, "13:30"),
    ("Order 2 lattes for 2025-06-20.", 2, "2025-06-20", None),
])
def test_request_facts(text, count, day, clock):
    facts = extract_facts(text, NOW, set(content_words(text)))
    assert (facts.count, facts.date, facts.time) == (count, day, clock)


def test_price_cap_in_a_request():
    assert extract_facts("Get me lunch under 50 yuan", NOW).max_price == 50


def test_a_disliked_tag_loses_to_a_liked_one_whatever_the_rating():
    memory = PreferenceMemory("  - oat milk in coffee\n  - no whole milk anymore")
    liked = Candidate("S1", {"score": 4.5, "tags": ["coffee"]}, {"product_id": "P1", "tags": ["oat milk"]}, 0)
    disliked = Candidate("S2", {"score": 4.9, "tags": ["coffee"]}, {"product_id": "P2", "tags": ["whole milk"]}, 1)
    words = {"coffee"}
    score = CandidateScorer(memory, words, words)
    assert score(liked).value > score(disliked).value


# ------------------------------------------------------------------------------------------ agents


def test_registry_and_protocol():
    assert set(BUILTIN_AGENTS) == {"reference", "literal", "groundtruth-reader", "answer", "oracle"}
    for name in set(BUILTIN_AGENTS) - {"oracle"}:
        agent = make_builtin_agent(name)
        assert isinstance(agent, Agent)
    assert make_builtin_agent("groundtruth-reader").reads_groundtruth is True
    assert make_builtin_agent("reference").reads_groundtruth is False
    assert make_builtin_agent("answer").reads_answer is True
    assert not getattr(make_builtin_agent("groundtruth-reader"), "reads_answer", False)
    with pytest.raises(KeyError, match="built-ins: reference, literal, groundtruth-reader, answer\"$"):
        make_builtin_agent("gpt-4.1")


def test_oracle_is_a_deprecated_alias_of_groundtruth_reader():
    with pytest.warns(DeprecationWarning, match="'groundtruth-reader'.*the true answer oracle is 'answer'"):
        agent = make_builtin_agent("oracle")
    assert type(agent) is type(make_builtin_agent("groundtruth-reader"))


def _demo_setup(index: int = 0, *, memory: str = "", proactive: bool = False, groundtruth=None) -> tuple:
    data = json.loads(DEMO.read_text(encoding="utf-8"))
    user = data[0]
    sub = user["subtasks"][index]
    env = build_environment(sub["domain"], sub["environment"], user_id=user["user_id"],
                            time=sub["environment"]["time"], seed=0)
    setup = AgentSetup(system_prompt="", tools=env.tool_schemas(), memory=memory,
                       time=sub["environment"]["time"] + " Monday", user_profile=user["user_profile"],
                       proactive=proactive, groundtruth=groundtruth,
                       write_tools=frozenset(name for name, tool in env.tools.items() if tool.kind == "write"))
    messages = [Message(role="assistant", content="Hello, how can I help you?"),
                Message(role="user", content=sub["instruction"])]
    return setup, messages, env, sub


def test_agents_are_stateless_and_deterministic():
    setup, messages, _, _ = _demo_setup()
    agent = make_builtin_agent("reference")
    first = agent.respond(setup, messages)
    assert agent.respond(setup, list(messages)) == first
    assert make_builtin_agent("reference").respond(setup, messages) == first
    assert first.tool_calls and {c.name for c in first.tool_calls} == {
        "delivery_store_search_recommand", "delivery_product_search_recommand"}


def test_proactive_agents_ask_first_and_literal_does_not():
    setup, messages, _, _ = _demo_setup(4, proactive=True)
    for name in ("reference", "groundtruth-reader"):
        reply = make_builtin_agent(name).respond(setup, messages)
        assert reply.content and "?" in reply.content and re.search(ASK_COUNT_OR_TIME, reply.content, re.I)
    assert make_builtin_agent("literal").respond(setup, messages).tool_calls
    setup, messages, _, _ = _demo_setup(4, proactive=False)
    assert make_builtin_agent("reference").respond(setup, messages).tool_calls


def test_reference_never_reads_the_groundtruth_but_groundtruth_reader_does():
    truth = {"current": {"Food & drink": ["whole milk in coffee", "less sugar in drinks and desserts",
                                          "only orders from merchants rated at least 4.5"]}}

    def picked(name: str, memory: str, groundtruth=None) -> str:
        setup, messages, env, _ = _demo_setup(0, memory=memory, groundtruth=groundtruth)
        agent = make_builtin_agent(name)
        for _ in range(6):
            reply = agent.respond(setup, messages)
            messages.append(reply)
            if reply.tool_calls:
                for call in reply.tool_calls:
                    result = env.call(call.name, call.arguments)
                    messages.append(Message(role="tool", tool_call_id=call.id, name=call.name, content=result.content,
                                            error=result.error))
            else:
                return reply.content
        raise AssertionError("no recommendation")

    blind = picked("reference", "", groundtruth=truth)
    assert blind == picked("literal", "")
    assert picked("groundtruth-reader", "", groundtruth=truth) != blind
    assert picked("groundtruth-reader", "", groundtruth=truth) == picked("reference", "\n".join(
        f"  - {t}" for t in truth["current"]["Food & drink"]))


def _run_suite(path, agent_name: str, memory: str, trials: int = 1, limit: int | None = None) -> list:
    runner = ItemRunner(RunConfig(model=agent_name, memory=[memory], trials=trials))
    suite = runner.suite(path)
    agent, user_sim, judge = make_builtin_agent(agent_name), ScriptedUser(), RulesJudge()
    results = []
    for user in suite.users[:limit]:
        assert user.task is not None, user.error
        for index, sub in enumerate(user.task.subtasks):
            for trial in range(trials):
                results.append(runner.run(nodeid=f"{user.key}::{sub.subtask_id}[{memory}-t{trial}]", suite=suite,
                                          user=user, index=index, memory_name=memory, trial=trial, agent=agent,
                                          user_simulator=user_sim, judge=judge))
    return results


def _avg(results) -> float:
    return sum(r.reward for r in results) / len(results)


def _clean(results) -> None:
    for r in results:
        assert r.outcome != "error", r.error
        assert r.termination in ("agent_stop", "user_stop"), (r.nodeid, r.termination)


@pytest.fixture(scope="module")
def demo_scores() -> dict[tuple[str, str], list]:
    runs = {}
    for agent in ("groundtruth-reader", "reference", "literal"):
        for memory in ("none", "groundtruth", "full_context"):
            if agent != "reference" and memory != "full_context":
                continue
            runs[agent, memory] = _run_suite(DEMO, agent, memory)
    return runs


def test_demo_acceptance_ordering(demo_scores):
    oracle = _avg(demo_scores["groundtruth-reader", "full_context"])
    assert oracle >= 0.95
    assert _avg(demo_scores["literal", "full_context"]) <= oracle / 2
    none, full, truth = (_avg(demo_scores["reference", m]) for m in ("none", "full_context", "groundtruth"))
    assert none < full < truth, (none, full, truth)


def test_demo_episodes_are_clean(demo_scores):
    for results in demo_scores.values():
        _clean(results)
    oracle = demo_scores["groundtruth-reader", "full_context"]
    assert all(r.tool_errors == 0 for r in oracle)
    # The groundtruth reader succeeds through the whole script: it recommends, books, pays and confirms.
    sample = next(r for r in oracle if r.domain == "delivery")
    tools = [c.name for m in sample.messages for c in m.tool_calls or []]
    assert tools[-2:] == ["create_delivery_order", "pay_delivery_order"]


def test_trials_are_reproducible():
    results = _run_suite(DEMO, "reference", "full_context", trials=2, limit=1)
    by_trial = [[r.reward for r in results if r.trial == t] for t in (0, 1)]
    assert by_trial[0] == by_trial[1]


@pytest.mark.skipif(not VB1_DIR.exists(), reason=VB1_SKIP_REASON)
@pytest.mark.parametrize("agent_name, limit", [("reference", None), ("literal", 30), ("groundtruth-reader", 30)])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_real_vitabench1_tasks_never_crash(agent_name, limit, language):
    if language == "zh" and limit is None:
        limit = 50
    results = _run_suite(VB1_DIR / f"delivery_tasks_{language}.json", agent_name, "full_context", limit=limit)
    assert len(results) == (limit or 100)
    _clean(results)
    # Every episode reaches the write step or ends politely after a search.
    assert all(any(m.tool_calls for m in r.messages) for r in results)
