"""The ``rag`` backend: history records cut into chunks, embedded, retrieved by cosine similarity.

``update`` cuts each new interaction record into chunks of at most 512 tokens (:mod:`.chunking`);
``read(query)`` embeds the query, keeps the chunks whose cosine similarity reaches the threshold, takes
the ``top_k`` best (8 by default) and shows them in chronological order, so the agent sees which of two
contradicting records is the newer. Embeddings come from a local model by default or an
OpenAI-compatible endpoint (:mod:`pytest_vitabench.embeddings`), through a per-text disk cache: results
are the same whether the vectors were computed now or read back. No LLM is involved by default.

Differences from the official harness, on purpose:

* chunk vectors are computed lazily, in one batch, the first time a read needs them (a restored
  checkpoint holds no vectors: they come from the cache);
* the threshold defaults to the one calibrated for the embedding model (0.3, the paper's value, for
  endpoint models; see :func:`pytest_vitabench.embeddings.default_threshold`);
* when nothing reaches the threshold, the most recent ``top_k`` chunks are returned (labelled as such)
  instead of a whitespace keyword search, which cannot work for Chinese, or an unbounded dump;
* ``read()`` without a query (the ``read_preference_memory`` tool) returns the newest records within
  ``dump_tokens`` tokens, or, with a ``summarizer`` (an :class:`~.agentic.AgenticMemory`), its
  consolidated memory, which is updated incrementally instead of re-summarising every chunk each time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..domains.base import Tool
from ..messages import Usage
from ..suite.schema import DailyRecord, EventRecord
from .agentic import AgenticMemory, preference_tools
from .base import EMPTY_MEMORY, MemoryContext
from .chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_TOKENS, Chunk, chunk_records
from .tokens import keep_last_tokens

if TYPE_CHECKING:
    import numpy as np

    from ..embeddings import CachedEmbedder

#: The paper's values (memory.yaml ``rag``).
DEFAULT_TOP_K = 8
#: The budget of ``read()`` without a query.
DEFAULT_DUMP_TOKENS = 4096
#: Similarities are rounded before thresholding and ranking, so float noise never reorders results.
_DECIMALS = 6

_TEXT = {
    "en": {"hits": "User preference memory (records retrieved for the current request):",
           "recent": "No stored record matched the current request closely; the most recent records:",
           "dump": "User preference memory (the most recent records):",
           "dump_all": "User preference memory (every stored record):"},
    "zh": {"hits": "用户偏好记忆（与当前请求相关的记录）：",
           "recent": "没有与当前请求明显相关的记录；最近的记录：",
           "dump": "用户偏好记忆（最近的记录）：",
           "dump_all": "用户偏好记忆（全部记录）："},
}


class RagMemory:
    """Chunked, embedded history with top-k cosine retrieval.

    Args:
        embedder: The (cached) embedder; by default the process-wide one for ``embedding_model``.
        embedding_model: Used when ``embedder`` is not given (``None``: the default local model).
        top_k: Chunks returned per query.
        threshold: Minimum cosine similarity; ``None``: the embedding model's calibrated default.
        chunk_tokens: Tokens per chunk.
        chunk_overlap: Tokens shared by consecutive pieces of one long record.
        dump_tokens: Budget of ``read()`` without a query.
        language: ``en`` or ``zh`` (labels of the returned text).
        summarizer: An optional LLM memory that ``read()`` without a query returns instead of the dump.
        style: ``default`` (the behaviour above) or ``official`` (``--vita-rag-style official``): hits best
            first; no hit: chunks sharing a whitespace-separated keyword with the query, then the summary (or
            every chunk); ``read()`` without a query: the summary, or every chunk.
    """

    name = "rag"
    deterministic = True

    def __init__(self, *, embedder: CachedEmbedder | None = None, embedding_model: str | None = None,
                 top_k: int = DEFAULT_TOP_K, threshold: float | None = None,
                 chunk_tokens: int = DEFAULT_CHUNK_TOKENS, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
                 dump_tokens: int = DEFAULT_DUMP_TOKENS, language: str = "en",
                 summarizer: AgenticMemory | None = None, style: str = "default"):
        from ..embeddings import default_threshold, get_embedder

        if top_k < 1:
            raise ValueError(f"rag top_k must be at least 1, got {top_k}")
        if chunk_tokens < 1:
            raise ValueError(f"rag chunk_tokens must be positive, got {chunk_tokens}")
        self.embedder = embedder if embedder is not None else get_embedder(embedding_model)
        self.top_k = top_k
        self.threshold = default_threshold(self._model_name()) if threshold is None else float(threshold)
        self.chunk_tokens = chunk_tokens
        self.chunk_overlap = chunk_overlap
        self.dump_tokens = dump_tokens
        self.language = language if language in _TEXT else "en"
        self.summarizer = summarizer
        self.style = style
        self.deterministic = summarizer is None
        self.chunks: list[Chunk] = []
        self._vectors: np.ndarray | None = None  # rows for self.chunks[:len(rows)]

    def __repr__(self) -> str:
        return (f"RagMemory(model={self.embedder.model_id!r}, top_k={self.top_k}, threshold={self.threshold}, "
                f"chunk_tokens={self.chunk_tokens})")

    def _model_name(self) -> str:
        return self.embedder.model_id.split("@", 1)[0]

    @property
    def usage(self) -> Usage:
        return self.summarizer.usage if self.summarizer is not None else Usage()

    # -- protocol -----------------------------------------------------------------------------------

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        self.chunks.extend(chunk_records(records, self.chunk_tokens, self.chunk_overlap))
        if self.summarizer is not None:
            self.summarizer.update(records, context)

    def read(self, query: str | None = None) -> str:
        if not self.chunks:
            return EMPTY_MEMORY
        if query is None or not query.strip():
            return self._dump()
        text = _TEXT[self.language]
        hits = self.retrieve(query)
        if self.style == "official":
            return self._read_official(query, hits)
        if hits:
            return "\n".join([text["hits"], *(self.chunks[i].shown() for i, _ in sorted(hits))])
        recent = range(max(0, len(self.chunks) - self.top_k), len(self.chunks))
        return "\n".join([text["recent"], *(self.chunks[i].shown() for i in recent)])

    def _read_official(self, query: str, hits: list[tuple[int, float]]) -> str:
        """REFERENCE.md §4.2: similarity order; else a whitespace keyword match; else the summary or a dump."""
        text = _TEXT[self.language]
        if not hits:
            words = [w.lower() for w in query.split() if w.strip()]
            matched = [i for i, chunk in enumerate(self.chunks) if any(w in chunk.text.lower() for w in words)]
            hits = [(i, 0.0) for i in matched[:self.top_k]]
        if hits:
            return "\n".join([text["hits"], *(self.chunks[i].shown() for i, _ in hits)])
        return self._dump()

    def tools(self) -> list[Tool]:
        return preference_tools(read_fn=lambda: self.read(), query_fn=self.read)

    # -- retrieval ----------------------------------------------------------------------------------

    def retrieve(self, query: str) -> list[tuple[int, float]]:
        """``(chunk index, similarity)`` of the chunks selected for ``query``, best first."""
        vectors = self._chunk_vectors()
        if vectors.shape[0] == 0:
            return []
        query_vector = self.embedder.embed_queries([query])[0]
        scores = (vectors @ query_vector).round(_DECIMALS)
        ranked = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
        return [(i, float(scores[i])) for i in ranked[:self.top_k] if scores[i] >= self.threshold]

    def _chunk_vectors(self) -> np.ndarray:
        import numpy as np

        done = 0 if self._vectors is None else self._vectors.shape[0]
        if done < len(self.chunks):
            new = self.embedder.embed_documents([_embed_text(c) for c in self.chunks[done:]])
            self._vectors = new if self._vectors is None else np.vstack([self._vectors, new])
        assert self._vectors is not None
        return self._vectors

    def _dump(self) -> str:
        if self.summarizer is not None:
            return self.summarizer.read()
        if self.style == "official":  # the official dump: every chunk, no budget
            return "\n".join([_TEXT[self.language]["dump_all"], *(c.shown() for c in self.chunks)])
        body = keep_last_tokens("\n".join(c.shown() for c in self.chunks), self.dump_tokens)
        return f"{_TEXT[self.language]['dump']}\n{body}"

    # -- checkpoints --------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = {"chunks": [c.to_dict() for c in self.chunks]}
        if self.summarizer is not None:
            state["summary"] = self.summarizer.state()
        return state

    def load_state(self, state: dict[str, Any]) -> None:
        self.chunks = [Chunk.from_dict(c) for c in state.get("chunks", [])]
        self._vectors = None
        if self.summarizer is not None and "summary" in state:
            self.summarizer.load_state(state["summary"])

    def fingerprint(self) -> dict[str, Any]:
        # top_k, threshold and dump_tokens only shape reads, so changing them reuses the checkpoints.
        from .tokens import tokenizer_name

        out: dict[str, Any] = {"chunk_tokens": self.chunk_tokens, "chunk_overlap": self.chunk_overlap,
                               "tokenizer": tokenizer_name()}
        if self.summarizer is not None:
            out["summary"] = self.summarizer.fingerprint()
        return out


def _embed_text(chunk: Chunk) -> str:
    # Line breaks carry no meaning for the encoder (the official harness replaces them too).
    return " ".join(chunk.text.split("\n"))
