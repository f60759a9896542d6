"""The none, groundtruth and full_context backends and the name registry."""

from __future__ import annotations

import pytest

from pytest_vitabench.memory.base import EMPTY_MEMORY, MemoryContext
from pytest_vitabench.memory.full_context import FullContextMemory
from pytest_vitabench.memory.groundtruth import GroundTruthMemory
from pytest_vitabench.memory.null import NoMemory
from pytest_vitabench.memory.registry import RunMemories
from pytest_vitabench.memory.tokens import count_tokens, keep_last_tokens, regex_count
from pytest_vitabench.options.values import memory_list
from pytest_vitabench.suite.schema import DailyRecord, EventRecord

CTX = MemoryContext(user_id="U1", subtask_id="s1", now="2025-06-01 11:00:00",
                    groundtruth={"current": {"food": ["no cilantro", "oat milk"], "budget": "under 40 yuan"}})
RECORDS = [
    DailyRecord(date="2025-05-01", behavior=[{"behavior_type": "order", "content": {"item": "latte"}}],
                dialogue=[{"role": "user", "content": "oat milk please"}, {"role": "assistant", "content": "sure"}]),
    EventRecord(type="review", timestamp="2025-05-02 10:00:00", content={"rating": 2, "text": "too sweet"}),
]


def test_none_memory_is_empty():
    memory = NoMemory()
    memory.update(RECORDS, CTX)
    assert memory.read("anything") == ""


def test_groundtruth_renders_only_current_preferences():
    memory = GroundTruthMemory()
    assert memory.read() == EMPTY_MEMORY
    memory.update([], CTX)
    text = memory.read()
    assert "[food]\n  - no cilantro\n  - oat milk" in text and "[budget]\n  - under 40 yuan" in text


def test_full_context_renders_lines_in_order_and_truncates_from_the_front():
    memory = FullContextMemory()
    assert memory.read() == EMPTY_MEMORY
    memory.update(RECORDS, CTX)
    lines = memory.read().splitlines()
    assert lines[0] == '- [2025-05-01] [order] {"item": "latte"}'
    assert lines[1] == "- [2025-05-01] [dialogue] user: oat milk please | assistant: sure"
    assert lines[2].startswith("- [2025-05-02 10:00:00] [review]")
    small = FullContextMemory(max_tokens=34)
    small.update(RECORDS, CTX)
    kept = small.read()
    assert count_tokens(kept) <= 34 and kept.startswith("- [2025-05-02")  # partial first line dropped


@pytest.mark.parametrize("budget", [1, 20, 34, 60, 90, 130, 200, 10_000])
def test_full_context_keeps_the_text_whole_exactly_when_its_chunks_counted_alone_fit(budget):
    # below the budget in bytes nothing is counted; past it every chunk is, once: the same text either way
    chunks = [RECORDS, RECORDS[1:],
              [DailyRecord(date="2025-05-03", dialogue=[{"role": "user", "content": "再来一杯燕麦拿铁"}])]]
    memory, whole = FullContextMemory(max_tokens=budget), FullContextMemory(max_tokens=10**9)
    tokens = 0
    for records in chunks:
        memory.update(records, CTX)
        whole.update(records, CTX)
        alone = FullContextMemory(max_tokens=10**9)
        alone.update(records, CTX)
        tokens += count_tokens(alone.read())
        joined = whole.read()
        assert memory.read() == (joined if tokens <= budget else keep_last_tokens(joined, budget))


def test_token_estimate_handles_chinese_and_english():
    assert regex_count("order two lattes, please") == 5
    assert regex_count("帮我点个外卖") == 6
    assert keep_last_tokens("a b\nc d", 10) == "a b\nc d"


def test_registry_names_aliases_and_errors():
    assert memory_list("--vita-memory", "null, full_context,none") == ["none", "full_context"]
    assert RunMemories().factory("null")().read() == ""
    with pytest.raises(ValueError, match="needs an LLM: set --vita-memory-model"):
        RunMemories().factory("rewrite")
    with pytest.raises(ValueError, match="unknown memory backend 'vector'"):
        RunMemories().factory("vector")
    with pytest.raises(ValueError, match="cannot load memory backend"):
        RunMemories().factory("no_such_module:Cls")
    with pytest.raises(ValueError):
        memory_list("--vita-memory", " , ")


class GoodCustom:
    def update(self, records, context):
        self.n = len(records)

    def read(self, query=None):
        return f"custom {query}"


class BadCustom:
    pass


def test_module_class_backends_are_checked_against_the_protocol():
    assert RunMemories().factory(f"{__name__}:GoodCustom")().read("q") == "custom q"
    with pytest.raises(TypeError, match="must define update"):
        RunMemories().factory(f"{__name__}:BadCustom")()
