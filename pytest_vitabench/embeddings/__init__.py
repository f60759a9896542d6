"""Sentence embeddings for the RAG memory: a local model (default) or an OpenAI-compatible endpoint,
behind a per-text disk cache.

Endpoint requests go through :meth:`pytest_vitabench.llm.LLMClient.embed` (role ``embeddings``): the run's
rate and concurrency limits, retries, and usage ledger apply. A different base URL for embeddings gets its
own client with the same settings and ledger.

    embedder = get_embedder()                                   # local use-multilingual-v3
    embedder = get_embedder("text-embedding-3-large", base_url="http://127.0.0.1:8000/v1", cache_dir=...)
    vectors = embedder.embed_documents(["..."])                 # (n, d) float32, L2-normalised

Import-light: numpy and the model packages load on the first embedding.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..llm.client import LLMClient, endpoint_url
from ..llm.settings import LLMSettings
from .cache import EmbeddingCache, vector_key
from .local import (
    DEFAULT_LOCAL_MODEL,
    INSTALL_HINT,
    LOCAL_MODELS,
    LocalEmbedder,
    LocalModelSpec,
    LocalModelUnavailable,
    check_available,
    local_spec,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_LOCAL_MODEL", "INSTALL_HINT", "LOCAL_MODELS", "PAPER_THRESHOLD", "CachedEmbedder", "EmbeddingCache",
    "Encoder", "EndpointEmbedder", "LocalEmbedder", "LocalModelSpec", "LocalModelUnavailable", "check_available",
    "default_threshold", "get_embedder", "local_spec", "vector_key",
]

#: The paper's cosine threshold, calibrated for ``text-embedding-3-large``; used for endpoint models.
PAPER_THRESHOLD = 0.3


class Encoder(Protocol):
    """What computes vectors: a local model or an endpoint (no cache, no normalisation)."""

    model_id: str

    def embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        """``(n, d)`` float32 vectors; ``kind`` is ``query`` or ``document``."""
        ...


class EndpointEmbedder:
    """A model at an OpenAI-compatible endpoint; the id names the endpoint so caches never mix servers."""

    def __init__(self, model: str, client: LLMClient, *, one_per_request: bool = False):
        self.model = model
        self.client = client
        #: One text per request, as VitaBench 2.0's rag sends them (the vectors are the same either way).
        self.one_per_request = one_per_request
        self.model_id = f"{model}@{client.endpoint}"

    def __repr__(self) -> str:
        return f"EndpointEmbedder({self.model!r}, endpoint={self.client.endpoint!r})"

    def embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        """Vectors of ``texts`` as an ``(n, d)`` float32 array; queries and documents are embedded alike."""
        import numpy as np

        vectors = self.client.embed("embeddings", model=self.model, texts=list(texts),
                                    one_per_request=self.one_per_request)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


class CachedEmbedder:
    """An :class:`Encoder` behind the per-text cache; every vector it returns is L2-normalised float32.

    Attributes:
        encoder: What computes missing vectors.
        cache: Where vectors are kept.
        computed: Vectors computed by the encoder so far (a warm cache keeps this at 0).
        reused: Vectors served from the cache so far.
    """

    def __init__(self, encoder: Encoder, cache: EmbeddingCache | None = None):
        self.encoder = encoder
        self.cache = cache if cache is not None else EmbeddingCache()
        self.model_id = encoder.model_id
        self.computed = 0
        self.reused = 0
        self._lock = threading.Lock()
        #: Keys another thread is computing now -> set when they are stored (or it gave up).
        self._pending: dict[str, threading.Event] = {}

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.encoder!r}, {self.cache!r})"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "document")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "query")

    def _compute(self, missing: dict[str, str], kind: str) -> int:
        """Compute and store the missing vectors, each once per process: a key another thread is already
        computing (two episodes of the same user embed the same history at once) is waited for instead of
        being requested and paid for twice. Returns how many vectors this call computed."""
        with self._lock:
            mine = {key: text for key, text in missing.items() if key not in self._pending}
            theirs = [self._pending[key] for key in missing if key not in mine]
            for key in mine:
                self._pending[key] = threading.Event()
        try:
            if mine:
                vectors = self.encoder.embed(list(mine.values()), kind)
                for key, vector in zip(mine, vectors, strict=True):
                    # Normalise once, before storing: the array used now is the array a later run reads back.
                    self.cache.put(key, _normalised(vector))
        finally:
            with self._lock:
                for key in mine:
                    self._pending.pop(key).set()
        for event in theirs:
            event.wait()
        # What the other thread failed to store (its request failed) is computed here after all.
        rest = {key: text for key, text in missing.items() if key not in mine and self.cache.get(key) is None}
        return len(mine) + (self._compute(rest, kind) if rest else 0)

    def _embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        import numpy as np

        keys = [vector_key(self.model_id, kind, text) for text in texts]
        # key -> text, de-duplicated (a key names its text) and in first-seen order
        missing = {key: text for key, text in zip(keys, texts, strict=True) if self.cache.get(key) is None}
        computed = self._compute(missing, kind) if missing else 0
        with self._lock:
            self.computed += computed
            self.reused += len(keys) - computed
        vectors = [vector for key in keys if (vector := self.cache.get(key)) is not None]
        if len(vectors) != len(keys):
            raise RuntimeError("the embedding cache has no vector for a key it has just stored")
        if not vectors:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack(vectors).astype(np.float32, copy=False)


def _normalised(vector: np.ndarray) -> np.ndarray:
    import numpy as np

    vector = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def default_threshold(model: str | None) -> float:
    """The cosine threshold that stands for the paper's 0.3 under ``model`` (``None``: the default)."""
    spec = local_spec(model or DEFAULT_LOCAL_MODEL)
    return spec.threshold if spec is not None else PAPER_THRESHOLD


_EMBEDDERS: dict[tuple[Any, ...], CachedEmbedder] = {}
_EMBEDDERS_LOCK = threading.Lock()
_LOCAL: dict[str, LocalEmbedder] = {}


def get_embedder(model: str | None = None, *, base_url: str | None = None, llm_client: LLMClient | None = None,
                 cache_dir: Path | str | None = None, one_per_request: bool = False) -> CachedEmbedder:
    """The process-wide embedder for these settings (the model loads once per process).

    Args:
        model: A local model name (see :data:`LOCAL_MODELS`; ``None``: :data:`DEFAULT_LOCAL_MODEL`) or a
            model name at an OpenAI-compatible endpoint.
        base_url: The endpoint of a remote model (default: ``llm_client``'s, else ``$OPENAI_BASE_URL``).
        llm_client: The run's LLM client, whose limits, retries and ledger remote requests share.
        cache_dir: The disk store's root (vectors live under ``cache_dir/embeddings``); ``None`` keeps
            them in memory only.
        one_per_request: A remote model gets one text per request (VitaBench 2.0's rag requests).

    Raises:
        LocalModelUnavailable: A local model whose package is not installed.
        MissingAPIKey: A remote model at OpenAI's default endpoint without a key.
    """
    name = model or DEFAULT_LOCAL_MODEL
    spec = local_spec(name)
    root = Path(cache_dir) if cache_dir is not None else None
    key = (spec.name if spec else name, None if spec else base_url, None if spec else id(llm_client), root,
           one_per_request and spec is None)
    with _EMBEDDERS_LOCK:
        embedder = _EMBEDDERS.get(key)
        if embedder is None:
            if spec is not None:
                # One model per process, whatever the cache directory.
                encoder: Encoder = _LOCAL.get(spec.name) or _LOCAL.setdefault(spec.name, LocalEmbedder(spec))
            else:
                encoder = EndpointEmbedder(name, _endpoint_client(llm_client, base_url),
                                           one_per_request=one_per_request)
            embedder = CachedEmbedder(encoder, EmbeddingCache(root))
            _EMBEDDERS[key] = embedder
    return embedder


def _endpoint_client(llm_client: LLMClient | None, base_url: str | None) -> LLMClient:
    """The client for embedding requests: ``llm_client`` itself, or one aimed at ``base_url``."""
    if llm_client is None:
        return LLMClient(LLMSettings(base_url=base_url))
    if base_url is None or endpoint_url(base_url) == llm_client.endpoint:
        return llm_client
    return LLMClient(llm_client.settings.model_copy(update={"base_url": base_url}), ledger=llm_client.ledger)
