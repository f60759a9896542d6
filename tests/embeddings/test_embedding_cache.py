"""The per-text embedding cache and the endpoint embedder (against the stub server on 127.0.0.1)."""

from __future__ import annotations

import numpy as np
from memory._fake_embedder import BagOfWords

from pytest_vitabench.embeddings import (
    PAPER_THRESHOLD,
    CachedEmbedder,
    EmbeddingCache,
    default_threshold,
    get_embedder,
    vector_key,
)
from pytest_vitabench.llm import LLMClient, LLMSettings


def test_vectors_are_normalised_float32_and_a_warm_cache_embeds_nothing(tmp_path):
    encoder = BagOfWords()
    cold = CachedEmbedder(encoder, EmbeddingCache(tmp_path))
    texts = ["oat milk latte", "hotel with breakfast", "oat milk latte"]
    first = cold.embed_documents(texts)
    assert first.dtype == np.float32 and first.shape == (3, 256)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-6)
    assert encoder.calls == [["oat milk latte", "hotel with breakfast"]]  # duplicates embedded once
    assert (cold.computed, cold.reused) == (2, 1)

    # A new process (new embedder, new in-memory layer) over the same directory: nothing is computed, and
    # the vectors are bit-identical to the ones used in the cold run.
    encoder2 = BagOfWords()
    warm = CachedEmbedder(encoder2, EmbeddingCache(tmp_path))
    again = warm.embed_documents(texts)
    assert encoder2.calls == [] and warm.computed == 0 and warm.reused == 3
    assert np.array_equal(first, again)


def test_keys_separate_models_kinds_and_texts(tmp_path):
    keys = {vector_key("m1", "query", "x"), vector_key("m2", "query", "x"), vector_key("m1", "document", "x"),
            vector_key("m1", "query", "y")}
    assert len(keys) == 4
    cache = EmbeddingCache(tmp_path)
    key = vector_key("m1", "query", "x")
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_bytes(b"\x00\x01")  # truncated entry: a miss, never an error
    assert cache.get(key) is None


def test_endpoint_embeddings_are_cached_per_text(stub, tmp_path):
    client = LLMClient(LLMSettings(base_url=stub.base_url, max_retries=0))
    embedder = get_embedder("text-embedding-3-large", llm_client=client, cache_dir=tmp_path)
    assert embedder.model_id == f"text-embedding-3-large@{stub.base_url}"
    vectors = embedder.embed_documents(["a", "b"])
    assert vectors.shape == (2, 4) and len(stub.requests) == 1
    assert stub.requests[0]["input"] == ["a", "b"] and stub.requests[0]["model"] == "text-embedding-3-large"
    embedder.embed_queries(["a"])  # queries are cached apart from documents
    embedder.embed_documents(["b", "a"])
    assert len(stub.requests) == 2
    assert client.ledger.by_role()["embeddings"].requests == 2
    # The same model at another endpoint is another model: never served from this cache.
    other = get_embedder("text-embedding-3-large", base_url="http://127.0.0.1:9/v1", llm_client=client,
                         cache_dir=tmp_path)
    assert other is not embedder and other.model_id.endswith("127.0.0.1:9/v1")
    assert other.encoder.client.ledger is client.ledger


def test_thresholds_follow_the_model():
    assert default_threshold("text-embedding-3-large") == PAPER_THRESHOLD == 0.3
    assert default_threshold(None) == default_threshold("use-multilingual-v3") == 0.12
    assert default_threshold("local:multilingual-e5-small") == 0.0


class _SlowOnce(BagOfWords):
    """Holds its first call until told, so a second thread asks for the same texts meanwhile; can fail."""

    def __init__(self, fail_first: bool = False) -> None:
        super().__init__()
        import threading

        self.started = threading.Event()
        self.release = threading.Event()
        self.fail_first = fail_first

    def embed(self, texts, kind):
        first = not self.calls
        vectors = super().embed(texts, kind)
        if first:
            self.started.set()
            self.release.wait(10)
            if self.fail_first:
                raise RuntimeError("endpoint down")
        return vectors


def _two_threads_embed(embedder: CachedEmbedder, encoder: _SlowOnce, texts: list[str]) -> list:
    import threading
    import time

    out: list = []

    def embed() -> None:
        try:
            out.append(embedder.embed_documents(texts))
        except RuntimeError as exc:
            out.append(exc)

    first = threading.Thread(target=embed)
    first.start()
    assert encoder.started.wait(10)
    second = threading.Thread(target=embed)
    second.start()
    time.sleep(0.2)  # the second is now waiting on the first's keys (or, on the old code, has asked twice)
    encoder.release.set()
    first.join(10)
    second.join(10)
    return out


def test_texts_another_thread_is_embedding_are_waited_for_not_requested_twice(tmp_path):
    encoder = _SlowOnce()
    embedder = CachedEmbedder(encoder, EmbeddingCache(tmp_path))
    results = _two_threads_embed(embedder, encoder, ["oat milk latte", "hotel with breakfast"])
    assert encoder.calls == [["oat milk latte", "hotel with breakfast"]]
    assert (embedder.computed, embedder.reused) == (2, 2)
    assert np.array_equal(results[0], results[1])


def test_a_waiter_computes_what_the_other_thread_failed_to_store(tmp_path):
    encoder = _SlowOnce(fail_first=True)
    embedder = CachedEmbedder(encoder, EmbeddingCache(tmp_path))
    results = _two_threads_embed(embedder, encoder, ["oat milk latte"])
    assert sorted(type(r).__name__ for r in results) == ["RuntimeError", "ndarray"]
    assert encoder.calls == [["oat milk latte"], ["oat milk latte"]]
