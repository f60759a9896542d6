"""The rag backend as the official harness runs it: chunk text, cutting, requests, retrieval, memory text.

The wording comes from the stand-in checkout (``_fake_official``), so these tests need neither ``../shared``
nor the official text; ``tests/test_official_side_by_side.py`` compares the requests with the real harness.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from _fake_official import make_checkout
from _stub_llm import StubLLM

from pytest_vitabench.embeddings import CachedEmbedder, EmbeddingCache, get_embedder
from pytest_vitabench.llm.client import LLMClient
from pytest_vitabench.llm.settings import LLMSettings
from pytest_vitabench.memory import rag
from pytest_vitabench.memory.base import MemoryContext, memory_tools
from pytest_vitabench.memory.rag import official_rag_memory
from pytest_vitabench.memory.registry import RunMemories
from pytest_vitabench.memory.spec import MemoryOptions
from pytest_vitabench.memory.tokens import count_tokens, split_token_windows, tokenizer_name
from pytest_vitabench.official.rag import OfficialRagMemory, record_chunk
from pytest_vitabench.official.source import locate
from pytest_vitabench.official.wording import OfficialWording
from pytest_vitabench.suite.schema import DailyRecord, EventRecord

CTX = MemoryContext(user_id="U1", subtask_id="s1", now="2025-03-01 09:00:00", seed=7)


class Table:
    """An encoder whose vectors the test chooses: a text's vector is that of the first key it contains."""

    model_id = "test:table"

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors = vectors
        self.texts: list[str] = []

    def embed(self, texts, kind):
        self.texts += list(texts)
        rows = [next((v for k, v in self.vectors.items() if k in t), [0.0, 0.0, 1.0]) for t in texts]
        return np.asarray(rows, dtype=np.float32)


@pytest.fixture
def wording(tmp_path):
    return OfficialWording(locate(str(make_checkout(tmp_path / "harness"))), "en")


def day(date: str, content: dict, said: str = "") -> DailyRecord:
    return DailyRecord(date=date, behavior=[{"behavior_type": "order", "content": content}],
                       dialogue=[{"role": "user", "content": said}] if said else [])


def memory(wording, vectors, **kwargs) -> tuple[OfficialRagMemory, Table]:
    table = Table(vectors)
    return official_rag_memory(embedder=CachedEmbedder(table, EmbeddingCache()), wording=wording, **kwargs), table


def test_a_day_is_the_json_of_each_behaviour_then_of_its_dialogue_with_keywords():
    record = DailyRecord(date="2025-01-08", behavior=[{"behavior_type": "order", "content": {"item": "茶", "n": 2}},
                                                      {"behavior_type": "browse", "content": "plain"}],
                         dialogue=[{"role": "user", "content": "one two three four five six"}])
    chunk = record_chunk(record, "DAY")
    assert chunk.text.splitlines() == ['{"behavior_type": "order", "content": {"item": "茶", "n": 2}}',
                                       '{"behavior_type": "browse", "content": "plain"}',
                                       '[{"role": "user", "content": "one two three four five six"}]']
    # string values of dict contents, then the first five words of each turn
    assert chunk.keywords == ("茶", "one", "two", "three", "four", "five")
    assert (chunk.timestamp, chunk.kind) == ("2025-01-08", "DAY")
    assert record_chunk(DailyRecord(date="d"), "DAY").text == ""  # nothing to store


def test_an_event_is_its_contents_json_and_keeps_its_type():
    chunk = record_chunk(EventRecord(type="review", timestamp="t", content={"text": "sweet", "stars": 4}), "DAY")
    assert (chunk.text, chunk.kind, chunk.keywords) == ('{"text": "sweet", "stars": 4}', "review",
                                                        ("sweet", "text", "stars"))
    assert record_chunk(EventRecord(type="note", timestamp="t", content=None), "DAY").text == "None"


@pytest.mark.skipif(tokenizer_name() != "cl100k_base", reason="needs the tokens extra (cl100k_base)")
def test_long_texts_are_cut_into_decoded_token_windows():
    text = " ".join(f"word{i}" for i in range(300))
    assert split_token_windows(text, 1000) == [text]
    pieces = split_token_windows(text, 100)
    assert [count_tokens(p) for p in pieces[:-1]] == [100] * (len(pieces) - 1)
    assert "".join(pieces) == text  # disjoint windows: decoded, nothing lost or repeated
    overlapping = split_token_windows(text, 100, 20)
    assert len(overlapping) > len(pieces) and overlapping[0] == pieces[0]
    assert split_token_windows(text, 100, 100) == pieces  # an overlap out of range counts as none
    assert split_token_windows("", 100) == []


def test_without_cl100k_the_windows_are_two_characters_a_token(monkeypatch):
    monkeypatch.setenv("VITA_TOKENIZER", "regex")
    assert split_token_windows("abcdefghij", 2) == ["abcd", "efgh", "ij"]


def test_hits_best_first_within_threshold_and_top_k_in_the_official_listing(wording):
    mem, _ = memory(wording, {"latte": [1.0, 0.0, 0.0], "mocha": [0.9, 0.44, 0.0], "tea": [0.6, 0.8, 0.0],
                              "QUERY": [1.0, 0.0, 0.0]}, top_k=2, threshold=0.5)
    mem.update([day("d1", {"item": "tea"}), day("d2", {"item": "mocha"}), day("d3", {"item": "latte"}),
                day("d4", {"item": "soup"})], CTX)
    text = mem.read("QUERY")
    assert text.splitlines() == ["FOUND:", '* d3 | DAY | {"behavior_type": "order", "content": {"item": "latte"}}',
                                 '* d2 | DAY | {"behavior_type": "order", "content": {"item": "mocha"}}']
    # the tool answers without the heading, in its own line format
    assert mem.query("QUERY").splitlines()[0].startswith("> d3 DAY ")


def test_no_hit_falls_back_to_shared_keywords_then_to_every_chunk(wording):
    mem, _ = memory(wording, {}, threshold=1.01)  # no cosine reaches it
    mem.update([day("d1", {"item": "green tea"}, "tea please"), day("d2", {"item": "noodles"}, "Noodles tonight")],
               CTX)
    # "noodles" is a keyword of d2 (a string value) and a word of its dialogue's first five
    assert mem.read("noodles tonight").splitlines()[1].startswith("* d2 | DAY |")
    listing = mem.read("nothing shared")
    assert listing.splitlines()[0] == "ALL:" and [line[:7] for line in listing.splitlines() if line[0] == "+"] == [
        "+ d1 DA", "+ d2 DA"]
    assert mem.read() == listing  # no summary model: read() lists every chunk too


def test_each_piece_is_embedded_once_with_line_breaks_as_spaces(wording):
    mem, table = memory(wording, {})
    mem.update([DailyRecord(date="d", behavior=[{"behavior_type": "a", "content": {}},
                                                {"behavior_type": "b", "content": {}}])], CTX)
    assert table.texts == ['{"behavior_type": "a", "content": {}} {"behavior_type": "b", "content": {}}']
    mem.read("q\nr")
    assert table.texts[-1] == "q r"


def test_an_empty_memory_reads_as_the_official_text(wording):
    mem, table = memory(wording, {})
    mem.update([], CTX)
    assert (mem.read("anything"), mem.query("x"), table.texts) == ("RAG EMPTY", "RAG NOTHING", [])


def test_the_summary_request_is_the_official_one_and_read_returns_it(wording, monkeypatch):
    monkeypatch.setenv("VITA_TEST_KEY", "k")
    stub = StubLLM()
    stub.replies += [{"content": "  likes tea  "}, {"content": ""}]
    try:
        client = LLMClient(LLMSettings(base_url=stub.base_url, cache="off", api_key_env="VITA_TEST_KEY"))
        embedder = get_embedder("stub-embed", llm_client=client, one_per_request=True)
        mem = official_rag_memory(embedder=embedder, wording=wording, llm_client=client, summary_model="stub-agent")
        mem.update([day("d1", {"item": "tea"}), day("d2", {"item": "soup"})], CTX)
        embeds = [b for b, p in zip(stub.requests, stub.paths, strict=True) if p.endswith("/embeddings")]
        chats = [b for b, p in zip(stub.requests, stub.paths, strict=True) if not p.endswith("/embeddings")]
        assert sorted(b["input"] for b in embeds) == [  # one request a piece, sent in parallel
            '{"behavior_type": "order", "content": {"item": "soup"}}',
            '{"behavior_type": "order", "content": {"item": "tea"}}']
        assert chats == [{"model": "stub-agent", "seed": 7, "temperature": 0.0, "messages": [
            {"role": "system", "content": "SUMMARISE"},
            {"role": "user", "content": 'Records:\nd1/DAY/{"behavior_type": "order", "content": {"item": "tea"}}\n'
                                        'd2/DAY/{"behavior_type": "order", "content": {"item": "soup"}}\nEnd.'}]}]
        assert mem.read() == "likes tea" and mem.usage.requests == 1
        mem.update([day("d3", {"item": "rice"})], CTX)  # an empty answer: the listing of every chunk
        assert mem.read().splitlines()[0] == "ALL:" and len(mem.read().splitlines()) == 4  # one line a chunk
        assert json.loads(json.dumps(mem.state()))["summary"] == ""
    finally:
        stub.close()


def test_state_round_trip_recomputes_vectors_from_the_cache(wording):
    mem, table = memory(wording, {"tea": [1.0, 0.0, 0.0]})
    mem.update([day("d1", {"item": "tea"})], CTX)
    again, _ = memory(wording, {"tea": [1.0, 0.0, 0.0]})
    again.embedder = mem.embedder
    again.load_state(json.loads(json.dumps(mem.state())))
    assert again.read("tea") == mem.read("tea") and len(table.texts) == 2  # the chunk and the query, once each


def test_tools_carry_the_rag_files_descriptions(wording):
    mem, _ = memory(wording, {})
    tools = {t.name: t for t in memory_tools(mem)}
    assert tools["query_preference_memory"].description == "Ask the vectors."
    assert tools["read_preference_memory"].description == "Read the retrieved memory."
    assert tools["query_preference_memory"].parameters["properties"]["query"] == {"title": "Query", "type": "string"}


def test_the_factory_builds_it_only_with_the_official_style_and_source(tmp_path, monkeypatch):
    monkeypatch.setenv("VITA_TEST_KEY", "k")
    stub = StubLLM()
    try:
        client = LLMClient(LLMSettings(base_url=stub.base_url, cache="off", api_key_env="VITA_TEST_KEY"))
        source = locate(str(make_checkout(tmp_path / "harness")))
        opts = MemoryOptions(embedding_model="text-embedding-3-large", llm_client=client, rag_style="official",
                             official_source=source, memory_model="stub-agent", language="en")
        built = RunMemories(opts).factory("rag")()
        assert isinstance(built, OfficialRagMemory) and built.threshold == 0.3 and built.top_k == 8
        assert built.embedder.encoder.one_per_request
        assert not rag.SPEC.is_deterministic(opts)  # its summary is sampled per trial
        assert rag.SPEC.is_deterministic(replace(opts, memory_model=None))
        assert not isinstance(RunMemories(replace(opts, rag_style="default")).factory("rag")(), OfficialRagMemory)
        assert not isinstance(RunMemories(replace(opts, official_source=None)).factory("rag")(), OfficialRagMemory)
        with pytest.raises(ValueError, match="--vita-memory-model"):
            RunMemories(replace(opts, memory_model=None, rag_summary=True)).factory("rag")
    finally:
        stub.close()
