"""The ``rag`` backend as the official harness runs it (``--vita-deviation rag=official`` with an official source).

Re-implemented from the official ``rag_memory.py``; every word that reaches a model is read from the user's
copy of the harness (:class:`~pytest_vitabench.official.wording.OfficialWording`). Where we differ, none of
it changing what a model is sent when every call succeeds: a failed embedding or summary request is an
infrastructure error of the item (officially: a chunk without a vector, or the listing as summary), and a
text embedded before is not requested again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..domains.base import Tool
from ..messages import Usage
from ..suite.schema import DailyRecord, EventRecord

if TYPE_CHECKING:
    import numpy as np

    from ..embeddings import CachedEmbedder
    from ..llm.client import LLMClient
    from .wording import OfficialWording

#: The official module whose tool descriptions and wording this backend reads.
OFFICIAL_FILE = "memory/rag_memory.py"
#: Words of a dialogue turn that become keywords of its day's chunk (the official keyword search).
_DIALOGUE_KEYWORDS = 5


class _Seeded(Protocol):
    """What an update needs of the memory context: the trial's seed."""

    @property
    def seed(self) -> int | None: ...


@dataclass(frozen=True)
class Windows:
    """How a record's text is cut before embedding, as the memory package cuts it (token windows).

    Attributes:
        split: ``split(text, size, overlap)``: the windows of ``text``.
        size: Tokens per window.
        overlap: Tokens shared by neighbouring windows.
        tokenizer: The name of the tokenizer counting them.
    """

    split: Callable[[str, int, int], list[str]]
    size: int
    overlap: int
    tokenizer: Callable[[], str]


@dataclass(frozen=True)
class OfficialChunk:
    """One stored piece: its text, the keywords of its record, the record's date and type."""

    text: str
    keywords: tuple[str, ...]
    timestamp: str
    kind: str

    def listed(self) -> tuple[str, str, str]:
        return self.timestamp, self.kind, self.text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def record_chunk(record: DailyRecord | EventRecord, daily_label: str) -> OfficialChunk:
    """A record as the official rag stores it, before cutting (its text may be empty: nothing is stored)."""
    if isinstance(record, DailyRecord):
        parts, keywords = [], []
        for event in record.behavior:
            parts.append(_json(event.model_dump(exclude_unset=True)))
            if isinstance(event.content, dict):
                keywords += [v for v in event.content.values() if isinstance(v, str)]
        if record.dialogue:
            turns = [turn.model_dump(exclude_unset=True) for turn in record.dialogue]
            keywords += [word for turn in record.dialogue for word in turn.content.split()[:_DIALOGUE_KEYWORDS]]
            parts.append(_json(turns))
        return OfficialChunk("\n".join(parts), tuple(keywords), record.date, daily_label)
    content = record.content
    text = _json(content) if isinstance(content, (dict, list)) else str(content)
    keywords = [*(v for v in content.values() if isinstance(v, str)), *content] if isinstance(content, dict) else []
    return OfficialChunk(text, tuple(keywords), record.timestamp, record.type)


class OfficialRagMemory:
    """Chunked, embedded history with the official harness's retrieval, summary and wording.

    Args:
        embedder: The (cached) embedder, one text per request for an endpoint model.
        llm_client: The run's LLM client for the summary (``None`` or no ``summary_model``: no summary, as
            without an agent LLM).
        params: The summary request's settings over temperature 0 (the memory model's models.yaml entry).
        windows: How records are cut.
        tools: ``tools(read_fn=, query_fn=)``: the memory's tools, which get the official descriptions.
    """

    def __init__(self, *, embedder: CachedEmbedder, wording: OfficialWording, windows: Windows,
                 tools: Callable[..., list[Tool]], llm_client: LLMClient | None = None,
                 summary_model: str | None = None, top_k: int = 8, threshold: float = 0.3,
                 params: dict[str, Any] | None = None):
        self.embedder = embedder
        self.windows = windows
        self.preference_tools = tools
        self.wording = wording
        self.client = llm_client if summary_model else None
        self.summary_model = summary_model
        self.top_k = top_k
        self.threshold = threshold
        self.params = dict(params or {})
        self.chunks: list[OfficialChunk] = []
        self.summary = ""
        self.usage = Usage()
        self._vectors: list[np.ndarray] = []  # rows for self.chunks[:len(rows)]

    # -- protocol -----------------------------------------------------------------------------------

    def update(self, records: list[DailyRecord | EventRecord], context: _Seeded) -> None:
        if not records:
            return
        label = self.wording.rag_daily_label()
        for record in records:
            whole = record_chunk(record, label)
            for piece in self.windows.split(whole.text, self.windows.size, self.windows.overlap):
                self.chunks.append(OfficialChunk(piece, whole.keywords, whole.timestamp, whole.kind))
        self._chunk_vectors()  # officially embedded at update time, before the summary
        if self.client is not None:
            self.summary = self._summarise(context)

    def read(self, query: str | None = None) -> str:
        if not self.chunks:
            return self.wording.rag_empty("read")
        if query:
            scored = self._scored(query)
            if scored:
                return self.wording.rag_listing("read", [c.listed() for c in scored[:self.top_k]])
        return self.summary or self._listing()

    def query(self, query: str) -> str:
        """The ``query_preference_memory`` tool: the best chunks without a heading, else every chunk."""
        if not self.chunks:
            return self.wording.rag_empty("query_preference_memory")
        scored = self._scored(query)
        if not scored:
            return self._listing()
        return self.wording.rag_listing("query_preference_memory", [c.listed() for c in scored[:self.top_k]])

    def tools(self) -> list[Tool]:
        return self.wording.memory_tools(self.preference_tools(read_fn=lambda: self.read(), query_fn=self.query),
                                         OFFICIAL_FILE)

    # -- retrieval ----------------------------------------------------------------------------------

    def _scored(self, query: str) -> list[OfficialChunk]:
        """Vector hits best first; none: the keyword matches best first (both stable: ties keep storage order)."""
        import numpy as np

        vectors = self._chunk_vectors()
        query_vector = self.embedder.embed_queries([embedded(query)])[0]
        # float32 as officially; the vectors are unit length, so the dot product is the cosine.
        scores = [float(np.dot(query_vector, v)) for v in vectors]
        hits = sorted((i for i, s in enumerate(scores) if s >= self.threshold), key=lambda i: -scores[i])
        if hits:
            return [self.chunks[i] for i in hits]
        words = set(query.lower().split())
        keyword_scores = []
        for i, chunk in enumerate(self.chunks):
            score = (len(words & {k.lower() for k in chunk.keywords})
                     + len(words & set(chunk.text.lower().split())) * 0.5)
            if score > 0:
                keyword_scores.append((score, i))
        keyword_scores.sort(key=lambda pair: -pair[0])
        return [self.chunks[i] for _, i in keyword_scores]

    def _chunk_vectors(self) -> list[np.ndarray]:
        new = self.chunks[len(self._vectors):]
        if new:
            self._vectors.extend(self.embedder.embed_documents([embedded(c.text) for c in new]))
        return self._vectors

    def _listing(self) -> str:
        return self.wording.rag_listing("_build_summary", [c.listed() for c in self.chunks])

    def _summarise(self, context: _Seeded) -> str:
        assert self.client is not None and self.summary_model is not None
        completion = self.client.complete("memory", model=self.summary_model, seed=context.seed,
                                          messages=self.wording.rag_summary_messages([c.listed() for c in self.chunks]),
                                          **{"temperature": 0.0, **self.params})
        self.usage = self.usage + completion.usage
        # An empty answer leaves the listing of every chunk, as officially.
        return completion.text.strip()

    # -- checkpoints --------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return {"chunks": [asdict(c) for c in self.chunks], "summary": self.summary}

    def load_state(self, state: dict[str, Any]) -> None:
        self.chunks = [OfficialChunk(c["text"], tuple(c["keywords"]), c["timestamp"], c["kind"])
                       for c in state.get("chunks", [])]
        self.summary = str(state.get("summary", ""))
        self._vectors = []  # from the embedding cache on the next read

    def fingerprint(self) -> dict[str, Any]:
        return {"style": "official", "chunk_tokens": self.windows.size, "chunk_overlap": self.windows.overlap,
                "tokenizer": self.windows.tokenizer(), "official_wording": self.wording.source.version,
                "summary_model": self.summary_model, "endpoint": getattr(self.client, "endpoint", None),
                "temperature": 0.0, "params": self.params}


def embedded(text: str) -> str:
    """The text an embedding request carries: line breaks replaced by spaces, as officially (nothing else)."""
    return text.replace("\n", " ")
