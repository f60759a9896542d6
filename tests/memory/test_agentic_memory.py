"""The agentic (official ``rewrite``) backend against the stub server on 127.0.0.1."""

from __future__ import annotations

import pytest
from _stub_llm import StubLLM

from pytest_vitabench.llm import LLMClient, LLMError, LLMSettings
from pytest_vitabench.memory.agentic import AgenticMemory
from pytest_vitabench.memory.base import EMPTY_MEMORY, MemoryContext, memory_tools, take_usage
from pytest_vitabench.memory.registry import RunMemories
from pytest_vitabench.memory.spec import MemoryOptions
from pytest_vitabench.suite.schema import DailyRecord

CTX = MemoryContext(user_id="U1", subtask_id="s1", now="2025-03-01 09:00:00", seed=1234)
RECORDS = [DailyRecord(date="2025-01-08", behavior=[{"behavior_type": "order", "content": {"item": "oat milk latte"}}],
                       dialogue=[{"role": "user", "content": "Oat milk please, less sugar."}])]
MORE = [DailyRecord(date="2025-02-01", dialogue=[{"role": "user", "content": "I switched to whole milk."}])]


def client(stub: StubLLM, tmp_path=None) -> LLMClient:
    return LLMClient(LLMSettings(base_url=stub.base_url, max_retries=0, cache_dir=tmp_path))


def test_rewrite_replaces_the_memory_and_carries_it_forward(stub):
    stub.replies += [{"content": "Food:\n- oat milk latte, less sugar"},
                     {"content": "<think>milk changed</think>\nFood:\n- whole milk latte, less sugar"}]
    memory = AgenticMemory(llm_client=client(stub), memory_model="mem-model")
    assert memory.read("anything") == EMPTY_MEMORY
    memory.update(RECORDS, CTX)
    assert memory.read() == "Food:\n- oat milk latte, less sugar"
    first = stub.requests[0]
    assert first["model"] == "mem-model" and first["seed"] == 1234
    assert first["max_tokens"] == 4096 and first["temperature"] == 0.0
    system, user = first["messages"]
    assert system["role"] == "system" and "preference memory" in system["content"]
    assert "(empty: nothing is recorded yet)" in user["content"] and "Oat milk please" in user["content"]
    assert "Food, Spending, Time, Location, Service, Other" in user["content"] and "4096 tokens" in user["content"]

    memory.update(MORE, CTX)
    assert "- oat milk latte, less sugar" in stub.requests[1]["messages"][1]["content"]  # the current memory
    assert memory.read("coffee") == "Food:\n- whole milk latte, less sugar"  # reasoning stripped, query ignored
    memory.update([], CTX)  # nothing new: no call
    assert len(stub.requests) == 2
    assert memory.usage.requests == 2 and take_usage(memory).requests == 2 and take_usage(memory).requests == 0


def test_tools_return_the_whole_memory(stub):
    stub.replies.append({"content": "Food:\n- no cilantro"})
    memory = AgenticMemory(llm_client=client(stub), memory_model="m")
    memory.update(RECORDS, CTX)
    tools = {t.name: t for t in memory_tools(memory)}
    assert tools["read_preference_memory"].fn() == "Food:\n- no cilantro"
    assert tools["query_preference_memory"].fn(query="hotels") == "Food:\n- no cilantro"


def test_empty_answer_appends_the_records_and_is_counted(stub):
    stub.replies.append({"content": "   "})
    memory = AgenticMemory(llm_client=client(stub), memory_model="m")
    memory.update(RECORDS, CTX)
    assert memory.fallbacks == 1 and "Oat milk please" in memory.read()


def test_a_failed_call_is_an_error_not_a_silent_fallback(stub):
    stub.replies.append((500, {"error": {"message": "boom"}}))
    memory = AgenticMemory(llm_client=client(stub), memory_model="m")
    with pytest.raises(LLMError, match="memory LLM call .* HTTP 500"):
        memory.update(RECORDS, CTX)
    assert memory.read() == EMPTY_MEMORY


def test_chinese_prompt_and_budget(stub):
    stub.replies.append({"content": "饮食：\n- 燕麦拿铁"})
    memory = AgenticMemory(llm_client=client(stub), memory_model="m", max_tokens=512, language="zh")
    memory.update(RECORDS, CTX)
    user = stub.requests[0]["messages"][1]["content"]
    assert "饮食、消费、时间、地点、服务、其他" in user and "512 个 token" in user
    assert stub.requests[0]["max_tokens"] == 512


def test_factory_needs_a_model_and_a_client(stub):
    with pytest.raises(ValueError, match="needs an LLM: set --vita-memory-model"):
        RunMemories(MemoryOptions(llm_client=client(stub))).factory("agentic")
    with pytest.raises(ValueError, match="needs an LLM client for the memory model 'm'.*--vita-base-url"):
        RunMemories(MemoryOptions(memory_model="m")).factory("rewrite")
    memory = RunMemories(MemoryOptions(llm_client=client(stub), memory_model="m", language="zh")).factory("agentic")()
    assert isinstance(memory, AgenticMemory) and memory.max_tokens == 4096 and memory.language == "zh"
    assert memory.fingerprint()["endpoint"] == stub.base_url


def test_repeated_rewrites_come_from_the_llm_cache(stub, tmp_path):
    stub.replies.append({"content": "Food:\n- oat milk"})
    AgenticMemory(llm_client=client(stub, tmp_path), memory_model="m").update(RECORDS, CTX)
    again = AgenticMemory(llm_client=client(stub, tmp_path), memory_model="m")
    again.update(RECORDS, CTX)
    assert again.read() == "Food:\n- oat milk" and len(stub.requests) == 1
    assert again.usage.cached_requests == 1 and again.usage.cost == 0


@pytest.mark.parametrize("language", ["en", "zh"])
def test_trials_rewrites_share_the_new_records_as_their_prompt_prefix(language):
    """Each trial keeps its own memory, the records are the same: they come first, so a provider's prompt
    cache serves them to every trial after the first."""
    records = "2030-01-01 ordered oat latte, less sugar\n" * 50
    rewrites = []
    for trial_memory in ("Food:\n- likes oat milk", "Food:\n- likes oat milk, no sugar"):
        memory = AgenticMemory(llm_client=None, memory_model="m", language=language)  # type: ignore[arg-type]
        memory.text = trial_memory
        rewrites.append(memory.messages(records))
    (system_a, user_a), (system_b, user_b) = rewrites
    assert system_a == system_b
    shared = next(i for i, (a, b) in enumerate(zip(user_a["content"], user_b["content"], strict=False)) if a != b)
    assert records.strip() in user_a["content"][:shared]
    assert user_a["content"].index(records) < user_a["content"].index("likes oat milk")
