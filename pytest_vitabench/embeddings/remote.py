"""Embeddings from an OpenAI-compatible ``/embeddings`` endpoint, through the one LLM client.

Requests go through :meth:`pytest_vitabench.llm.LLMClient.embed` (role ``embeddings``): the run's rate and
concurrency limits, retries, and usage ledger apply. A different base URL for embeddings gets its own
client with the same settings and ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from ..llm.client import LLMClient


def embeddings_client(llm_client: LLMClient | None, base_url: str | None) -> LLMClient:
    """The client for embedding requests: ``llm_client`` itself, or one aimed at ``base_url``.

    Raises:
        MissingAPIKey: The endpoint is OpenAI's default and the key variable is unset.
    """
    from ..llm.client import LLMClient, endpoint_url
    from ..llm.settings import LLMSettings

    if llm_client is None:
        return LLMClient(LLMSettings(base_url=base_url))
    if base_url is None or endpoint_url(base_url) == llm_client.endpoint:
        return llm_client
    return LLMClient(llm_client.settings.model_copy(update={"base_url": base_url}), ledger=llm_client.ledger)


class EndpointEmbedder:
    """A model at an OpenAI-compatible endpoint; the id names the endpoint so caches never mix servers."""

    def __init__(self, model: str, client: LLMClient, *, one_per_request: bool = False):
        self.model = model
        self.client = client
        #: One text per request, as the official rag sends them (the vectors are the same either way).
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
