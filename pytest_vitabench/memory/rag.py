"""The ``rag`` backend: history records cut into chunks, embedded, retrieved by cosine similarity.

``read(query)`` shows the ``top_k`` chunks reaching the threshold in chronological order, so the agent sees
which of two contradicting records is the newer; when none reaches it, the most recent ``top_k`` (a
whitespace keyword search, as officially, cannot work for Chinese). Vectors are computed lazily, in one
batch, through a per-text disk cache: a restored checkpoint holds none, and results are the same whether
they were computed now or read back. :class:`~pytest_vitabench.official.behaviour.RagRules` may order hits
by similarity with a keyword fallback, or (with the harness's source) run
:class:`~pytest_vitabench.official.rag.OfficialRagMemory` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from ..domains.base import Tool
from ..embeddings import (
    CachedEmbedder,
    LocalModelUnavailable,
    check_available,
    default_threshold,
    get_embedder,
    local_spec,
)
from ..llm.settings import MissingAPIKey
from ..messages import Usage
from ..official.behaviour import RagRules, rag_rules
from ..official.rag import OFFICIAL_FILE, OfficialRagMemory, Windows, embedded
from ..suite.schema import DailyRecord, EventRecord
from . import agentic
from .agentic import AgenticMemory, preference_tools
from .base import EMPTY_MEMORY, Memory, MemoryContext
from .chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_TOKENS, Chunk, chunk_records
from .spec import Endpoint, MemoryOptions, MemorySpec
from .tokens import keep_last_tokens, split_token_windows, tokenizer_name

if TYPE_CHECKING:
    import numpy as np

#: This project's retrieval rules.
OUR_RULES = RagRules()
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
        embedder: The (cached) embedder (:func:`~pytest_vitabench.embeddings.get_embedder`).
        top_k: Chunks returned per query.
        threshold: Minimum cosine similarity; ``None``: the embedding model's calibrated default.
        dump_tokens: Budget of ``read()`` without a query.
        language: ``en`` or ``zh`` (labels of the returned text).
        summarizer: An optional LLM memory that ``read()`` without a query returns instead of the dump.
        rules: The behaviour above, or (``rules.similarity_order``, ``--vita-deviation rag``): hits best
            first; no hit: chunks sharing a whitespace-separated keyword with the query, then the summary (or
            every chunk); ``read()`` without a query: the summary, or every chunk.
    """

    def __init__(self, *, embedder: CachedEmbedder, top_k: int = DEFAULT_TOP_K, threshold: float | None = None,
                 dump_tokens: int = DEFAULT_DUMP_TOKENS, language: str = "en",
                 summarizer: AgenticMemory | None = None, rules: RagRules = OUR_RULES):
        self.embedder = embedder
        self.top_k = top_k
        model = embedder.model_id.split("@", 1)[0]
        self.threshold = default_threshold(model) if threshold is None else float(threshold)
        self.dump_tokens = dump_tokens
        self.language = language if language in _TEXT else "en"
        self.summarizer = summarizer
        self.rules = rules
        self.chunks: list[Chunk] = []
        self._vectors: np.ndarray | None = None  # rows for self.chunks[:len(rows)]

    @property
    def usage(self) -> Usage:
        return self.summarizer.usage if self.summarizer is not None else Usage()

    # -- protocol -----------------------------------------------------------------------------------

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        self.chunks.extend(chunk_records(records))
        if self.summarizer is not None:
            self.summarizer.update(records, context)

    def read(self, query: str | None = None) -> str:
        if not self.chunks:
            return EMPTY_MEMORY
        if query is None or not query.strip():
            return self._dump()
        hits, heading = [i for i, _ in self.retrieve(query)], "hits"
        if self.rules.similarity_order:  # else a whitespace keyword match
            if not hits:
                words = [w.lower() for w in query.split() if w.strip()]
                matched = [i for i, chunk in enumerate(self.chunks) if any(w in chunk.text.lower() for w in words)]
                hits = matched[:self.top_k]
            if not hits:  # else the summary or a dump
                return self._dump()
        elif hits:
            hits.sort()
        else:
            hits, heading = list(range(max(0, len(self.chunks) - self.top_k), len(self.chunks))), "recent"
        return "\n".join([_TEXT[self.language][heading], *(self.chunks[i].shown() for i in hits)])

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
            new = self.embedder.embed_documents([embedded(c.text) for c in self.chunks[done:]])
            self._vectors = new if self._vectors is None else np.vstack([self._vectors, new])
        assert self._vectors is not None
        return self._vectors

    def _dump(self) -> str:
        if self.summarizer is not None:
            return self.summarizer.read()
        if self.rules.similarity_order:  # every chunk, no budget
            return "\n".join([_TEXT[self.language]["dump_all"], *(c.shown() for c in self.chunks)])
        body = keep_last_tokens("\n".join(c.shown() for c in self.chunks), self.dump_tokens)
        return f"{_TEXT[self.language]['dump']}\n{body}"

    # -- checkpoints --------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = {"chunks": [asdict(c) for c in self.chunks]}
        if self.summarizer is not None:
            state["summary"] = self.summarizer.state()
        return state

    def load_state(self, state: dict[str, Any]) -> None:
        self.chunks = [Chunk(**c) for c in state.get("chunks", [])]
        self._vectors = None
        if self.summarizer is not None and "summary" in state:
            self.summarizer.load_state(state["summary"])

    def fingerprint(self) -> dict[str, Any]:
        # top_k, threshold and dump_tokens only shape reads, so changing them reuses the checkpoints.
        out: dict[str, Any] = {"chunk_tokens": DEFAULT_CHUNK_TOKENS, "chunk_overlap": DEFAULT_CHUNK_OVERLAP,
                               "tokenizer": tokenizer_name()}
        if self.summarizer is not None:
            out["summary"] = self.summarizer.fingerprint()
        return out


#: How the official rag memory cuts records: as ours does.
WINDOWS = Windows(split=split_token_windows, size=DEFAULT_CHUNK_TOKENS, overlap=DEFAULT_CHUNK_OVERLAP,
                  tokenizer=tokenizer_name)


def official_rag_memory(**kwargs: Any) -> OfficialRagMemory:
    """The official rag memory, cutting records and offering tools as this package does."""
    return OfficialRagMemory(windows=WINDOWS, tools=preference_tools, **kwargs)


def wants_summary(options: MemoryOptions) -> bool:
    """Whether rag gets an LLM summary: ``--vita-memory-args rag-summary``, or ``--vita-deviation rag=official`` with
    a memory
    model and a client (the official rag summarises with the agent's model whenever it has one)."""
    return bool(options.rag_summary or (rag_rules(options.rag_style).official_memory and options.memory_model
                                        and options.llm_client is not None))


def build(options: MemoryOptions) -> Callable[[], Memory]:
    """The rag memory's factory: ours, or the official one under ``--vita-deviation rag=official`` with an official
    source.

    Raises:
        ValueError: The local embedding model or numpy is missing, the summary has no LLM, or an endpoint
            embedding model has no key.
    """
    model = options.embedding_model or None
    spec = local_spec(model) if model else local_spec("use-multilingual-v3")
    if spec is not None:
        try:
            check_available(spec)
        except LocalModelUnavailable as exc:
            raise ValueError(f"the rag memory: {exc}") from None
    try:
        import numpy  # noqa: F401 - the vectors and their cosine similarity, whichever model embeds
    except ImportError:
        raise ValueError("the rag memory needs numpy, also with an endpoint embedding model: "
                         "pip install 'pytest-vitabench[rag]'") from None
    top_k, threshold, summarised = options.rag_top_k or DEFAULT_TOP_K, options.rag_threshold, wants_summary(options)
    rules = rag_rules(options.rag_style)
    wording = options.wording() if rules.official_memory else None
    # Without the official wording the summary is an agentic memory with our prompt.
    summary = (agentic.build(replace(options, official_source=None), who="--vita-memory-args rag-summary")
               if summarised and wording is None else None)
    try:
        # Shared by every chain of the process; a local model loads on the first embedding, not here.
        embedder = get_embedder(model, base_url=options.embedding_base_url, llm_client=options.llm_client,
                                cache_dir=options.cache_dir, one_per_request=wording is not None)
    except MissingAPIKey as exc:
        raise ValueError(f"the rag memory's embedding model {model!r}: {exc}; or set --vita-memory-args "
                         f"embedding-base-url, "
                         f"or leave --vita-embedding-model unset for the local model") from None

    if wording is not None:
        official_threshold = default_threshold(model) if threshold is None else threshold
        summary_model, client = options.memory_model if summarised else None, options.llm_client
        if summarised and (not summary_model or client is None):
            agentic.build(options, who="--vita-memory-args rag-summary")  # raises, naming what is missing
        params = dict(options.rag_summary_args)
        return lambda: official_rag_memory(embedder=embedder, wording=wording, llm_client=client,
                                           summary_model=summary_model, top_k=top_k, threshold=official_threshold,
                                           params=params)
    return lambda: RagMemory(embedder=embedder, top_k=top_k, threshold=threshold, language=options.language,
                             summarizer=summary() if summary else None, rules=rules)


#: The official rag's retrieval (memory.yaml and rag_memory.py of the official harness).
OFFICIAL_EMBEDDING_MODEL = "text-embedding-3-large"
OFFICIAL_RAG_THRESHOLD = 0.3
OFFICIAL_RAG_TOP_K = 8


def _endpoints(config: Any) -> list[Endpoint]:
    """The embedding model, when an endpoint serves it (not one of the local models)."""
    if not config.embedding_model or local_spec(config.embedding_model) is not None:
        return []
    return [Endpoint("embeddings", "embeddings", config.embedding_model, config.embedding_base_url or config.base_url)]


def _comparability(config: Any) -> list[str]:
    """Why rag's retrieval is not the official one: its embedding model, where it runs, its threshold, top k."""
    reasons = []
    model = config.embedding_model
    if not model or local_spec(model) is not None:
        reasons.append(f"rag embeddings by the local model {model or 'use-multilingual-v3'}, not "
                       f"{OFFICIAL_EMBEDDING_MODEL} at an endpoint")
    elif model != OFFICIAL_EMBEDDING_MODEL:
        reasons.append(f"rag embeddings by {model}, not {OFFICIAL_EMBEDDING_MODEL}")
    threshold = config.rag_threshold
    if threshold is not None and threshold != OFFICIAL_RAG_THRESHOLD:
        reasons.append(f"rag threshold {threshold:g}, not {OFFICIAL_RAG_THRESHOLD:g}")
    if config.rag_top_k != OFFICIAL_RAG_TOP_K:
        reasons.append(f"rag top k {config.rag_top_k}, not {OFFICIAL_RAG_TOP_K}")
    return reasons


SPEC = MemorySpec(name="rag", build=build, deterministic=lambda options: not wants_summary(options),
                  calls_llm=lambda config: bool(config.rag_summary), endpoints=_endpoints,
                  prompt_budget=lambda options: (options.rag_top_k or DEFAULT_TOP_K) * DEFAULT_CHUNK_TOKENS,
                  embeds=True, counts_tokens=True, leaderboard=True, pivot=1, request_role="rag_summary",
                  switches=("rag_style",), comparability=_comparability, official_file=OFFICIAL_FILE)
