"""One client for every LLM role at any OpenAI-compatible endpoint: cache, limits, retries, ledger.

The ``openai`` client's own retries are off so that limits, ledger and logs see every attempt. The API
key lives only inside the ``openai`` client: it is in no repr, message, log line or cache key.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..messages import Usage
from .body import BodyEncoder
from .cache import DiskCache, cache_key
from .endpoints import OPENAI_DEFAULT_BASE_URL, Endpoint, endpoint_url, post_chat
from .errors import LLMError, scrub
from .ledger import Ledger
from .limits import Passage, RequestLimits
from .prefix_order import PrefixOrder
from .prices import price_for
from .responses import chat_payload, embeddings_payload
from .secrets import check_base_url, install_log_redaction, register_secret, scrub_payload
from .settings import LOCAL_KEY, LLMSettings, resolve_api_key

if TYPE_CHECKING:
    from .deferred import DeferredAnswers

__all__ = ["OPENAI_DEFAULT_BASE_URL", "Completion", "LLMClient", "endpoint_url"]

log = logging.getLogger("pytest_vitabench.llm")

#: Inputs per embeddings request; providers cap it (OpenAI: 2048) and smaller batches cache better.
EMBED_BATCH = 256
#: Embeddings requests of one call in flight at once.
EMBED_PARALLEL = 8


class Completion(BaseModel):
    """One chat-completion answer.

    Attributes:
        message: The assistant message; tool calls keep the model's raw ``arguments`` string (possibly
            malformed JSON).
        usage: Tokens and cost of this call (cost 0 for a cache hit).
        raw_finish_reason: The endpoint's ``finish_reason`` (``length``: cut at the token limit).
        model: The model name the endpoint reports having served.
    """

    model_config = ConfigDict(frozen=True)

    message: dict[str, Any]
    usage: Usage
    cached: bool = False
    raw_finish_reason: str | None = None
    model: str | None = None

    @property
    def text(self) -> str:
        return self.message.get("content") or ""

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return self.message.get("tool_calls") or []

    @property
    def truncated(self) -> bool:
        """The answer hit the token limit (``max_tokens`` / ``max_completion_tokens``)."""
        return self.raw_finish_reason == "length"


class LLMClient:
    """Chat completions and embeddings with retries, shared limits, a disk cache and a usage ledger.

    Several comma-separated base URLs are replicas of one model (see docs/rate-limits-and-batch.md): a
    request goes to the least busy usable one, a failed attempt moves at once to one not yet tried, and
    with several endpoints each breaker counts failed *attempts*, so a dead replica is drained before its
    requests run out of retries. The answers are cached under the whole set of URLs.

    Args:
        settings: Endpoint, retry, limit, cache and price settings.
        ledger: Where usage is recorded; a new one by default.
        count_tokens: Tokens of a text, for the estimate charged to ``settings.tpm``.

    Raises:
        MissingAPIKey: The OpenAI default endpoint is used and the key variable is unset.
        ValueError: ``settings.tpm`` without ``count_tokens``.
    """

    def __init__(self, settings: LLMSettings | None = None, ledger: Ledger | None = None, *,
                 count_tokens: Callable[[str], int] | None = None):
        self.settings = settings or LLMSettings()
        self.ledger = ledger if ledger is not None else Ledger()
        # Before anything can reach the network or a log (an endpoint may quote the auth header back).
        check_base_url(self.settings.base_url or os.environ.get("OPENAI_BASE_URL"))
        install_log_redaction()
        s = self.settings
        self._key = resolve_api_key(s.api_key_env, s.base_url)
        if self._key != LOCAL_KEY:
            register_secret(self._key)
        self.limits = RequestLimits(s, self.ledger, key=self._key, count_tokens=count_tokens)
        self.endpoints = self.limits.endpoints
        self.endpoint = ",".join(e.url for e in self.endpoints)
        self.host = self.limits.host
        self.cache = DiskCache(s.cache_dir) if s.cache_dir is not None else None
        self.prefix_order = PrefixOrder(max_wait_s=s.timeout_s) if s.prompt_cache_order else None
        self._encode_body = BodyEncoder()
        self._deferred: DeferredAnswers | None = None

    def __repr__(self) -> str:
        s = self.settings
        return (f"LLMClient(endpoint={self.endpoint!r}, api_key_env={s.api_key_env!r}, cache={s.cache!r}, "
                f"rpm={s.rpm}, tpm={s.tpm}, max_concurrency={s.max_concurrency}, timeout_s={s.timeout_s:g})")

    def close(self) -> None:
        for endpoint in self.endpoints:
            endpoint.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(self, role: str, *, model: str, messages: list[dict[str, Any]],
                 tools: list[dict[str, Any]] | None = None, seed: int | None = None, send_seed: bool = True,
                 **params: Any) -> Completion:
        """One chat completion.

        Args:
            role: ``agent``, ``user``, ``judge``, ``memory``... (ledger row and cache policy).
            tools: Function schemas; when given, ``tool_choice`` defaults to ``auto`` (as officially).
            seed: The trial seed: part of the cache key, and sent as the request's ``seed``.
            send_seed: ``False`` keeps the seed out of the request (VitaBench 2.0's judge gets none) while
                still keying the cache by it.
            **params: Passed to the endpoint as given; ``None`` values are left out.

        Raises:
            LLMError: The call failed after its retries, or was refused (a 4xx other than 408/409/429).
        """
        request: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            request["tools"] = tools
            request["tool_choice"] = "auto"
        if seed is not None and send_seed:
            request["seed"] = seed
        request.update({k: v for k, v in params.items() if v is not None})
        payload, cached = self._call("chat", role, model, request, seed)
        usage = self._usage(role, model, payload["usage"], cached)
        return Completion(message=payload["message"], usage=usage, cached=cached,
                          raw_finish_reason=payload.get("finish_reason"), model=payload.get("model"))

    def embed(self, role: str = "embeddings", *, model: str, texts: Sequence[str],
              one_per_request: bool = False) -> list[list[float]]:
        """Embedding vectors of ``texts``, in order.

        Args:
            one_per_request: Send each text alone, as VitaBench 2.0's rag memory does;
                otherwise up to :data:`EMBED_BATCH` texts share a request.

        Raises:
            LLMError: A batch failed after its retries.
        """
        if one_per_request:  # VitaBench 2.0's shape, with the SDK's default (base64) encoding
            requests: list[dict[str, Any]] = [{"model": model, "input": text} for text in texts]
        else:
            requests = [{"model": model, "input": list(texts[start:start + EMBED_BATCH]), "encoding_format": "float"}
                        for start in range(0, len(texts), EMBED_BATCH)]

        def send(request: dict[str, Any]) -> list[list[float]]:
            payload, cached = self._call("embeddings", role, model, request, None)
            self._usage(role, model, payload["usage"], cached)
            return list(payload["vectors"])

        if not one_per_request or len(requests) == 1:
            return [vector for request in requests for vector in send(request)]
        # Single-text requests in parallel (VitaBench 2.0's rag sends up to 64 at once).
        with ThreadPoolExecutor(max_workers=min(len(requests), EMBED_PARALLEL)) as pool:
            return [vector for vectors in pool.map(send, requests) for vector in vectors]

    def defer(self, answers: DeferredAnswers | None) -> None:
        """Answer the calls of ``answers.roles`` from ``answers`` (or queue them there); ``None``: send again."""
        self._deferred = answers

    @contextmanager
    def deferring(self, answers: DeferredAnswers) -> Iterator[DeferredAnswers]:
        """:meth:`defer` to ``answers`` for the body."""
        self.defer(answers)
        try:
            yield answers
        finally:
            self.defer(None)

    def _call(self, kind: str, role: str, model: str, request: dict[str, Any],
              trial_seed: int | None) -> tuple[dict[str, Any], bool]:
        cache = self.cache if self.settings.caches(role) else None
        deferred = self._deferred if self._deferred is not None and self._deferred.defers(role) else None
        hashed = functools.partial(cache_key, kind=kind, role=role, endpoint=self.endpoint, model=model,
                                   request=request, trial_seed=trial_seed)
        # Hashing a ~100k-token request is worth it for a lookup; otherwise only a retry's jitter needs it.
        key = hashed() if cache is not None or deferred is not None else None
        if deferred is not None and key is not None and key in deferred.answers:
            # before the cache, which this answer fills: a replayed pass counts it as the batch's every time
            return self._deferred_answer(deferred, kind, role, model, key, cache), False
        if cache is not None and key is not None:
            payload = cache.get_dict(key)
            log.debug("LLM cache %s: role=%s model=%s seed=%s key=%s", "hit" if payload else "miss",
                      role, model, trial_seed, key)
            if payload is not None:
                return payload, True
        if deferred is not None and key is not None:
            if kind != "chat":
                raise ValueError(f"only chat requests can be deferred to a batch, not {kind}")
            raise deferred.queue(key, request)
        order = self.prefix_order.turn(request) if self.prefix_order and kind == "chat" else contextlib.nullcontext()
        with order:
            payload = self._send(kind, role, model, request, salt=key or hashed)
        if cache is not None and key is not None:
            cache.put_json(key, payload, meta={"kind": kind, "role": role, "model": model, "trial_seed": trial_seed,
                                          "endpoint": self.endpoint})
        return payload, False

    def _deferred_answer(self, deferred: DeferredAnswers, kind: str, role: str, model: str, key: str,
                         cache: DiskCache | None) -> dict[str, Any]:
        """The batch's answer to ``key``; :class:`LLMError` if the batch could not answer it."""
        answer = deferred.answers[key]
        if "payload" not in answer:
            self.ledger.note_error(role)
            raise LLMError(f"{role} LLM call (model {model}) failed in batch {answer.get('batch_id')}: "
                           f"{scrub(str(answer.get('error')), self._key)}", role=role, model=model, host=self.host,
                           status=None, reason="batch", attempts=1, retryable=False)
        payload: dict[str, Any] = answer["payload"]
        deferred.note_batch(answer.get("batch_id"))
        if cache is not None and cache.get_dict(key) is None:  # a later synchronous run finds it too
            cache.put_json(key, payload, meta={"kind": kind, "role": role, "model": model, "endpoint": self.endpoint,
                                          "batch_id": answer.get("batch_id")})
        return payload

    def _send(self, kind: str, role: str, model: str, request: dict[str, Any], *,
              salt: str | Callable[[], str]) -> dict[str, Any]:
        """POST ``request`` attempt after attempt, as the limits allow, until it is answered; ``salt`` (the
        cache key, or how to compute it) seeds the retry jitter, so a request's waits are the same with or
        without the cache."""
        passage = Passage(self.limits, role, model, request, salt)
        while True:
            try:
                with passage.attempt() as endpoint:
                    sdk = self.api(endpoint)
                    response = (post_chat(sdk, request, self._encode_body if endpoint.takes_content else None)
                                if kind == "chat" else sdk.embeddings.create(**request))
                # A proxy may echo the request headers into an answer, which is recorded and cached.
                payload = scrub_payload(chat_payload(response)) if kind == "chat" else embeddings_payload(response)
            except Exception as exc:  # noqa: BLE001 - the limits raise the LLMError, or exc if it is not ours
                time.sleep(passage.failed(exc))
                continue
            passage.answered(payload["usage"])
            return payload

    def warm_up_in_background(self) -> threading.Thread:
        """Import ``openai`` and build the HTTP client in a daemon thread, while a worker still collects.

        A failure here is left for the first real call to raise and report.
        """

        def warm() -> None:
            try:
                self.api()
            except Exception:  # noqa: BLE001 - reported by the first call, which builds the client again
                log.debug("LLM client warm-up failed; the first call will build it", exc_info=True)

        thread = threading.Thread(target=warm, name="vita-llm-warm-up", daemon=True)
        thread.start()
        return thread

    def api(self, endpoint: Endpoint | None = None) -> Any:
        """The ``openai`` client of ``endpoint`` (the first by default): for our requests, and for the Batch
        API's files and batches."""
        limits = self.limits
        return (endpoint or self.endpoints[0]).sdk(self._key, self.settings.timeout_s,
                                                   limits.take_wire_slot if limits.on_the_wire else None)

    def _usage(self, role: str, model: str, tokens: dict[str, int], cached: bool) -> Usage:
        price = price_for(self.settings.prices, model)
        prompt, completion = tokens.get("prompt_tokens", 0), tokens.get("completion_tokens", 0)
        # A payload cached on disk before this field existed has no cached count: 0, like a provider without one.
        prompt_cached = tokens.get("cached_prompt_tokens", 0)
        usage = Usage(prompt_tokens=prompt, completion_tokens=completion, cached_prompt_tokens=prompt_cached,
                      reasoning_tokens=tokens.get("reasoning_tokens", 0),
                      cost=0.0 if cached or price is None else price.cost(prompt, completion, prompt_cached),
                      requests=0 if cached else 1, cached_requests=1 if cached else 0)
        deferred = self._deferred
        if deferred is not None and deferred.defers(role):
            # counted by the batch judge once the pass it belongs to completes (a pass may be replayed)
            deferred.note_usage(role, usage, model, price is not None)
            return usage
        self.ledger.record(role, usage, model=model, priced=price is not None)
        return usage

    def redact(self, text: str) -> str:
        """``text`` without this client's key (for messages quoting the endpoint's answers)."""
        return scrub(text, self._key)

