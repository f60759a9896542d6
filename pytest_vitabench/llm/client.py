"""One client for every LLM role (agent, user, judge, memory, embeddings) at any OpenAI-compatible endpoint.

Every call takes the same path: disk cache lookup (for the roles the cache mode covers), an adaptive
concurrency slot of this process (:mod:`.adaptive`: halved on a 429, grown back while the endpoint keeps
up), a concurrency slot, a token charge (:mod:`.tokenrate`) and a request-rate slot shared by all
processes of the run, the HTTP request with a timeout, our own retry loop (the ``openai`` client's
retries are off so that limits, ledger and logs see every attempt), then the ledger. The API key lives
only inside the ``openai`` client: it is in no repr, message, log line or cache key.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..messages import Usage
from .adaptive import AdaptiveConcurrency, Slot
from .breaker import CircuitBreaker, CircuitOpen
from .cache import DiskCache, cache_key
from .errors import LLMError, endpoint_host, scrub
from .ledger import Ledger
from .prefix_order import PrefixOrder
from .prices import price_for
from .ratelimit import Limiter, LimiterTimeout
from .redis_limits import LEASE_MARGIN_S, RedisLimiter
from .retry import Backoff, is_retryable_status, names_token_limit, parse_retry_after, token_reset_wait
from .secrets import check_base_url, install_log_redaction, register_secret, scrub_payload
from .settings import LOCAL_KEY, LLMSettings, base_urls, resolve_api_key

if TYPE_CHECKING:
    from .deferred import DeferredAnswers

log = logging.getLogger("pytest_vitabench.llm")

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Inputs per embeddings request; providers cap it (OpenAI: 2048) and smaller batches cache better.
EMBED_BATCH = 256
#: Embeddings requests of one call in flight at once.
EMBED_PARALLEL = 8


class Completion(BaseModel):
    """One chat-completion answer.

    Attributes:
        message: ``{"role": "assistant", "content": str | None, "tool_calls": [{id, type, function: {name,
            arguments}}]}``, ``arguments`` being the model's raw string (possibly malformed JSON), plus
            ``reasoning_content`` when the endpoint returns one.
        usage: Tokens and cost of this call (cost 0 for a cache hit).
        cached: Whether the answer came from the disk cache.
        raw_finish_reason: The endpoint's ``finish_reason``: ``stop``, ``tool_calls``, ``length`` (the answer
            was cut at the token limit), ``content_filter``...
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


def endpoint_url(base_url: str | None) -> str:
    """The effective endpoint of ``base_url`` (``None``: ``$OPENAI_BASE_URL`` or OpenAI's), without credentials."""
    return _endpoint(base_url)


def _endpoint(base_url: str | None) -> str:
    """The effective endpoint without credentials, for cache keys and messages."""
    from urllib.parse import urlsplit

    url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL).rstrip("/")
    parts = urlsplit(url)
    return f"{parts.scheme}://{endpoint_host(url)}{parts.path}"


class _Endpoint:
    """One base URL of a client: its SDK client (built on first use), circuit breaker and load."""

    def __init__(self, base_url: str | None, breaker: CircuitBreaker):
        self.base_url = base_url
        self.url = _endpoint(base_url)
        self.host = endpoint_host(self.url)
        self.breaker = breaker
        self.openai: Any = None
        self.in_flight = 0
        #: Attempts sent to it: the tie-break, so that requests one at a time alternate between endpoints.
        self.sent = 0


class LLMClient:
    """Chat completions and embeddings with retries, shared limits, a disk cache and a usage ledger.

    Several comma-separated base URLs are replicas of one model. Each request goes to the usable one with
    the fewest requests in flight (then the fewest sent); a failed attempt is retried on another at once,
    without a backoff, while one is left that this request has not tried. Each endpoint has its own
    circuit breaker, which with several endpoints counts failed *attempts*: an endpoint that dies is
    drained after ``circuit_breaker`` of them and the run goes on with the others, so an item is neither
    lost nor sent twice (its request is answered once, by one endpoint). Only when every endpoint's
    breaker is open do calls fail at once. The answers are cached under the whole set of URLs.

    Args:
        settings: Endpoint, retry, limit, cache and price settings.
        ledger: Where usage is recorded; a new one by default (shared ledgers make a per-process total).
        count_tokens: Tokens of a text, for the estimate charged to ``settings.tpm`` before a request is
            sent (the run passes :func:`pytest_vitabench.memory.tokens.count_tokens`, ``cl100k_base``).

    Raises:
        MissingAPIKey: The OpenAI default endpoint is used and the key variable is unset.
        ValueError: ``settings.tpm`` without ``count_tokens``.
    """

    def __init__(self, settings: LLMSettings | None = None, ledger: Ledger | None = None, *,
                 count_tokens: Callable[[str], int] | None = None):
        self.settings = settings or LLMSettings()
        self.ledger = ledger if ledger is not None else Ledger()
        # Before anything can reach the network or a log: no credentials in the URL, and the key redacted
        # from every log record (an endpoint may quote the auth header back).
        check_base_url(self.settings.base_url or os.environ.get("OPENAI_BASE_URL"))
        install_log_redaction()
        s = self.settings
        self.endpoints = [_Endpoint(url, CircuitBreaker(_endpoint(url), threshold=s.circuit_breaker,
                                                        state_dir=s.state_dir)) for url in base_urls(s.base_url)]
        self.endpoint = ",".join(e.url for e in self.endpoints)
        self.host = ",".join(e.host for e in self.endpoints)
        self._key = resolve_api_key(self.settings.api_key_env, self.settings.base_url)
        if self._key != LOCAL_KEY:
            register_secret(self._key)
        self.limiter: Limiter | RedisLimiter = Limiter(
            s.state_dir, rpm=s.rpm, max_concurrency=s.max_concurrency, window_s=s.rpm_window_s,
            max_wait_s=s.max_wait_s) if not s.limits_url else RedisLimiter(
            s.limits_url, rpm=s.rpm, max_concurrency=s.max_concurrency, window_s=s.rpm_window_s,
            max_wait_s=s.max_wait_s, lease_s=s.timeout_s + LEASE_MARGIN_S)
        from .tokenrate import TokenBudget

        self.token_budget = TokenBudget(s.state_dir, tokens=s.tpm, window_s=s.tpm_window_s, max_wait_s=s.max_wait_s)
        if s.tpm and count_tokens is None:
            raise ValueError("a tokens-per-minute budget (tpm) needs count_tokens, the counter its estimates use "
                             "(pytest_vitabench.memory.tokens.count_tokens)")
        # Every turn of a conversation re-sends its history and its system prompt (the memory: ~100k tokens
        # under full_context, ~0.1 s of cl100k counting): the same strings, so their counts are remembered.
        self._count_tokens = functools.lru_cache(maxsize=256)(count_tokens) if count_tokens is not None else None
        self.adaptive = AdaptiveConcurrency(ceiling=s.max_concurrency)
        #: How many tokens per request the estimate of each model misses, as learned (see _correct_tokens).
        self._estimate_error: dict[str, int] = {}
        #: The tokens the request about to be sent by this thread is charged, and its ticket once charged.
        self._charge = threading.local()
        self.cache = DiskCache(s.cache_dir) if s.cache_dir is not None else None
        #: The first endpoint's breaker (the only one of a client with one base URL).
        self.breaker = self.endpoints[0].breaker
        self.backoff = Backoff(base_s=s.backoff_base_s, max_s=s.backoff_max_s, retry_after_max_s=s.retry_after_max_s)
        self.prefix_order = PrefixOrder(max_wait_s=s.timeout_s) if s.prompt_cache_order else None
        self._lock = threading.Lock()
        self._deferred: DeferredAnswers | None = None

    def __repr__(self) -> str:
        s = self.settings
        return (f"LLMClient(endpoint={self.endpoint!r}, api_key_env={s.api_key_env!r}, cache={s.cache!r}, "
                f"rpm={s.rpm}, tpm={s.tpm}, max_concurrency={s.max_concurrency}, timeout_s={s.timeout_s:g})")

    def close(self) -> None:
        with self._lock:
            for endpoint in self.endpoints:
                if endpoint.openai is not None:
                    endpoint.openai.close()
                    endpoint.openai = None

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public calls -------------------------------------------------------------------------------

    def complete(self, role: str, *, model: str, messages: list[dict[str, Any]],
                 tools: list[dict[str, Any]] | None = None, seed: int | None = None, send_seed: bool = True,
                 **params: Any) -> Completion:
        """One chat completion.

        Args:
            role: ``agent``, ``user``, ``judge``, ``memory``... (ledger row and cache policy).
            model: The model name at the endpoint.
            messages: Chat-completions messages.
            tools: Function schemas; when given, ``tool_choice`` defaults to ``auto`` (as officially).
            seed: The trial seed: part of the cache key, and sent as the request's ``seed``.
            send_seed: ``False`` keeps the seed out of the request (the official judge gets none) while
                still keying the cache by it.
            **params: Passed to the endpoint as given: ``temperature``, ``top_p``, ``max_tokens``,
                ``max_completion_tokens``, ``reasoning_effort``, ``stop``, ``tool_choice``, ``extra_body``,
                ``extra_headers``...; ``None`` values are left out.

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
        """Embedding vectors of ``texts``, in order, through the same limits, retries, cache and ledger.

        Args:
            one_per_request: Send each text alone, as the official rag does (``--vita-rag-style official``);
                otherwise up to :data:`EMBED_BATCH` texts share a request.

        Raises:
            LLMError: A batch failed after its retries.
        """
        if one_per_request:
            # The official harness's shape: one text per request, the SDK's default (base64) encoding.
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
        # Single-text requests in parallel (the official rag sends up to 64 at once); the run's rate and
        # concurrency limits still apply to each. Results keep the texts' order.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(len(requests), EMBED_PARALLEL)) as pool:
            return [vector for vectors in pool.map(send, requests) for vector in vectors]

    # -- the shared path ----------------------------------------------------------------------------

    def defer(self, answers: DeferredAnswers | None) -> None:
        """From now on answer the calls of ``answers.roles`` from ``answers`` (or queue them there), see
        :mod:`.deferred`; ``None`` sends every call again."""
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
        # The key hashes the canonical JSON of the whole request (under full_context, ~100k tokens): worth it
        # for a cache lookup; without the cache it is needed only to seed a retry's jitter, so it waits for one.
        key: str | None = None
        if cache is not None or deferred is not None:
            key = cache_key(kind=kind, role=role, endpoint=self.endpoint, model=model, request=request,
                            trial_seed=trial_seed)
        if deferred is not None and key is not None and key in deferred.answers:
            # before the cache, which this answer fills: a replayed pass counts it as the batch's every time
            return self._deferred_answer(deferred, kind, role, model, key, cache), False
        if cache is not None and key is not None:
            payload = cache.get(key)
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
            payload = self._send(kind, role, model, request, salt=key, trial_seed=trial_seed)
        if cache is not None and key is not None:
            cache.put(key, payload, meta={"kind": kind, "role": role, "model": model, "trial_seed": trial_seed,
                                          "endpoint": self.endpoint})
        return payload, False

    def _deferred_answer(self, deferred: DeferredAnswers, kind: str, role: str, model: str, key: str,
                         cache: DiskCache | None) -> dict[str, Any]:
        """The batch's answer to ``request`` (known to be in ``deferred``).

        Raises:
            LLMError: The batch could not answer this request.
        """
        answer = deferred.answers[key]
        if "payload" not in answer:
            self.ledger.note_error(role)
            raise LLMError(f"{role} LLM call (model {model}) failed in batch {answer.get('batch_id')}: "
                           f"{scrub(str(answer.get('error')), self._key)}", role=role, model=model, host=self.host,
                           status=None, reason="batch", attempts=1, retryable=False)
        payload: dict[str, Any] = answer["payload"]
        deferred.note_batch(answer.get("batch_id"))
        if cache is not None and cache.get(key) is None:  # a later synchronous run finds it too
            cache.put(key, payload, meta={"kind": kind, "role": role, "model": model, "endpoint": self.endpoint,
                                          "batch_id": answer.get("batch_id")})
        return payload

    def _send(self, kind: str, role: str, model: str, request: dict[str, Any], *, salt: str | None,
              trial_seed: int | None) -> dict[str, Any]:
        """POST ``request`` with our retries; ``salt`` (the cache key, computed here if ``None`` and a retry
        is due) seeds the retry jitter, so a request's waits are the same with or without the cache."""
        attempts = self.settings.max_retries + 1
        estimate: int | None = None
        several = len(self.endpoints) > 1
        tried: set[int] = set()
        for attempt in range(attempts):
            ticket: int | None = None
            slot: Slot | None = None
            endpoint: _Endpoint | None = None
            try:
                # Before every attempt: another worker may have opened a breaker meanwhile.
                endpoint = self._pick_endpoint(tried)
                tried.add(id(endpoint))
                try:
                    with self.adaptive.slot() as slot, self.limiter.concurrency_slot():
                        if self.token_budget.tokens:
                            if estimate is None:
                                from .tokenrate import estimate_request_tokens

                                assert self._count_tokens is not None  # checked with tpm in __init__
                                estimate = estimate_request_tokens(request, self._count_tokens)
                            learned = self._estimate_error.get(model, 0)
                            # charged by the HTTP client's request hook (_take_rate_slot), as it goes on the wire
                            self._charge.tokens, self._charge.ticket = max(estimate // 2, estimate + learned), None
                        try:
                            if kind == "chat":
                                response = self._post_chat(endpoint, **request)
                            else:
                                response = self._client(endpoint).embeddings.create(**request)
                        finally:
                            ticket, self._charge.tokens = getattr(self._charge, "ticket", None), None
                finally:
                    with self._lock:
                        endpoint.in_flight -= 1
                endpoint.breaker.record_success()
                self.adaptive.succeeded()
                if several:
                    self.ledger.note_endpoint(endpoint.url)
                # A proxy may echo the request headers into an answer, which is recorded and cached.
                payload = scrub_payload(_chat_payload(response)) if kind == "chat" else _embeddings_payload(response)
                if ticket is not None and estimate is not None:
                    self._correct_tokens(model, ticket, estimate, payload["usage"])
                return payload
            except CircuitOpen as exc:
                self.ledger.note_error(role)
                raise LLMError(f"{role} LLM call (model {model}) not sent: {exc}", role=role, model=model,
                               host=self.host, status=None, reason="circuit_open", attempts=attempt,
                               retryable=False) from None
            except Exception as exc:  # classified below; anything unknown is re-raised as it is
                failure = self._classify(exc)
                if failure is None:
                    raise
                reason, status, retryable, retry_after, detail = failure
                assert endpoint is not None  # only the request itself is classified
                token_limit = False
                if status == 429:
                    retry_after, token_limit = self._throttled(exc, ticket, slot, retry_after, detail)
                if several and status != 429 and _is_endpoint_failure(reason, status, retryable):
                    self.ledger.note_endpoint(endpoint.url, failed=True)
                    # Each failed attempt counts (a 429 says busy, not dead): a dead replica is drained before
                    # its requests run out of retries.
                    endpoint.breaker.record_failure(
                        f"{endpoint.host}: {_what(reason, status, self.settings.timeout_s)}")
                if not retryable or attempt + 1 >= attempts:
                    self.ledger.note_error(role)
                    error = self._error(role, model, reason, status, retryable, attempt + 1, detail, endpoint.host)
                    if not several and _is_endpoint_failure(reason, status, retryable):
                        self.breaker.record_failure(str(error))
                    raise error from None
                if several and self._untried_left(tried):
                    self.ledger.note_retry(role)
                    log.info("%s call to %s (model %s): %s; retrying at once on another endpoint", role,
                             endpoint.host, model, _what(reason, status, self.settings.timeout_s))
                    continue
                if salt is None:
                    salt = cache_key(kind=kind, role=role, endpoint=self.endpoint, model=model, request=request,
                                     trial_seed=trial_seed)
                wait = self.backoff.delay(attempt, retry_after=retry_after, salt=salt)
                if token_limit:  # every process waits for the provider's token window, not only this request
                    self.token_budget.pause(wait)
                self.ledger.note_retry(role)
                log.info("%s call to %s (model %s): %s; retry %d/%d in %.2f s%s", role, self.host, model,
                         _what(reason, status, self.settings.timeout_s), attempt + 1, attempts - 1, wait,
                         " (token limit)" if token_limit else " (Retry-After)" if retry_after is not None else "")
                time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _correct_tokens(self, model: str, ticket: int, estimate: int, usage: dict[str, int]) -> None:
        """Charge what the provider counted instead of the estimate, and learn how far estimates of
        ``model`` are off (the completion, unknown before the answer; the provider's own rendering of tools
        and messages) so the next charges come closer. A charge is never cut below half its estimate."""
        spent = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        self.token_budget.correct(ticket, spent)
        with self._lock:
            error = spent - estimate
            before = self._estimate_error.get(model)
            # a moving average over about the last ten answers: one model's completions vary, slowly
            self._estimate_error[model] = round(error if before is None else 0.9 * before + 0.1 * error)

    def _throttled(self, exc: BaseException, ticket: int | None, slot: Slot | None, retry_after: float | None,
                   detail: str) -> tuple[float | None, bool]:
        """Account for a 429: the refused request spent no tokens, this process sends fewer requests at
        once, and a 429 that names a token limit waits for the token window's reset.

        Returns:
            The wait the server asked for (``None``: back off as usual), and whether it named a token limit.
        """
        self.token_budget.correct(ticket, 0)
        if slot is not None and self.adaptive.throttled(slot):
            log.info("429 from %s: requests in flight from this process cut to %s", self.host, self.adaptive.limit)
        response = getattr(exc, "response", None)
        headers = dict(getattr(response, "headers", None) or {})
        if not names_token_limit(detail, headers):
            return retry_after, False
        return token_reset_wait(detail, headers), True

    def warm_up_in_background(self) -> threading.Thread:
        """Load the ``openai`` package and build the HTTP client in a daemon thread, now.

        The package is slow to import, a cost paid by whichever call comes first; an xdist worker
        that starts this as its session starts pays it while it collects and waits for the controller to send
        it items, not while its first episodes hold their requests back. A failure here is left for the first
        real call to raise and report.
        """

        def warm() -> None:
            try:
                self._client()
            except Exception:  # noqa: BLE001 - reported by the first call, which builds the client again
                log.debug("LLM client warm-up failed; the first call will build it", exc_info=True)

        thread = threading.Thread(target=warm, name="vita-llm-warm-up", daemon=True)
        thread.start()
        return thread

    def _pick_endpoint(self, tried: set[int]) -> _Endpoint:
        """The usable endpoint (breaker closed) with the fewest requests in flight (then the fewest sent),
        preferring those this request has not tried; it counts as in flight from here.

        Raises:
            CircuitOpen: Every endpoint's breaker is open.
        """
        usable = [e for e in self.endpoints if e.breaker.reason() is None]
        if not usable:
            self.endpoints[-1].breaker.check()
            raise AssertionError("unreachable")  # pragma: no cover - check() raised
        fresh = [e for e in usable if id(e) not in tried] or usable
        with self._lock:
            chosen = min(fresh, key=lambda e: (e.in_flight, e.sent))  # then the first listed
            chosen.in_flight += 1
            chosen.sent += 1
        return chosen

    def _untried_left(self, tried: set[int]) -> bool:
        return any(id(e) not in tried and e.breaker.reason() is None for e in self.endpoints)

    def _client(self, endpoint: _Endpoint | None = None) -> Any:
        endpoint = endpoint or self.endpoints[0]
        with self._lock:
            if endpoint.openai is None:
                from openai import DefaultHttpxClient, OpenAI  # the openai package loads only when a call is made

                # The rate slot and the token charge are taken in the HTTP client's request hook, i.e. after
                # the openai package has built the request and right before it goes on the wire, so the
                # windows we count are the ones the server sees.
                http_client = (DefaultHttpxClient(event_hooks={"request": [self._take_rate_slot]})
                               if self.limiter.rpm or self.token_budget.tokens else None)
                endpoint.openai = OpenAI(base_url=endpoint.base_url, api_key=self._key,
                                         timeout=self.settings.timeout_s, max_retries=0, http_client=http_client)
            return endpoint.openai

    def _post_chat(self, endpoint: _Endpoint, **request: Any) -> dict[str, Any]:
        """POST a chat completion as a plain JSON body and return the answer's JSON.

        ``chat.completions.create`` first walks the whole request through the SDK's typed-dict transform
        (about 450 recursive calls per request with a domain's tool schemas: a third of an item's CPU in a
        run against a fast endpoint) and then builds pydantic models of the answer; our requests are already
        plain JSON and we keep only a few fields of the answer. ``post`` is the SDK's documented way to call
        an endpoint with a raw body; it keeps the SDK's headers, auth, timeout and status-error exceptions.
        """
        extra_body = request.pop("extra_body", None) or {}
        options: dict[str, Any] = {}
        for name, option in (("extra_headers", "headers"), ("extra_query", "params"), ("timeout", "timeout")):
            if request.get(name) is not None:
                options[option] = request.pop(name)
        response = self._client(endpoint).post("/chat/completions", body={**request, **extra_body}, options=options,
                                       cast_to=_http_response_class())
        data = response.json()
        if not isinstance(data, dict):
            raise BadResponse(f"the 200 answer is not a JSON object: {str(data)[:200]}")
        return data

    def _take_rate_slot(self, _request: Any) -> None:
        tokens = getattr(self._charge, "tokens", None)
        if tokens is not None:
            self._charge.ticket = self.token_budget.charge(tokens)
        self.limiter.acquire_rate()

    def _classify(self, exc: BaseException) -> tuple[str, int | None, bool, float | None, str] | None:
        """``(reason, status, retryable, retry_after, detail)`` of an openai error; ``None`` if unknown."""
        import openai

        if isinstance(exc, LimiterTimeout) or isinstance(exc.__cause__, LimiterTimeout):
            return "limiter", None, False, None, str(exc.__cause__ or exc)
        # A 200 whose body is not JSON, or has no choices, is a server fault like a 5xx (an overloaded
        # gateway answering with an HTML page, a proxy cutting the body): retried, and counted if it persists.
        if isinstance(exc, (BadResponse, json.JSONDecodeError, openai.APIResponseValidationError)):
            return "bad_response", None, True, None, str(exc)
        if isinstance(exc, openai.APITimeoutError):
            return "timeout", None, True, None, ""
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            return "connection", None, True, None, f"{type(cause).__name__}: {cause}" if cause else ""
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            retryable = is_retryable_status(status)
            retry_after = parse_retry_after(exc.response.headers) if retryable else None
            return "http", status, retryable, retry_after, _error_detail(exc.body, exc.message)
        return None

    def _error(self, role: str, model: str, reason: str, status: int | None, retryable: bool, attempts: int,
               detail: str, host: str | None = None) -> LLMError:
        what = _what(reason, status, self.settings.timeout_s)
        refused = "" if retryable else " (not retried)"
        detail = scrub(detail, self._key)
        message = (f"{role} LLM call to {host or self.host} (model {model}) failed after {attempts} attempt(s): "
                   f"{what}{refused}{': ' + detail if detail else ''}")
        if status in (401, 403):
            message += f" - check the key in ${self.settings.api_key_env}"
        return LLMError(message, role=role, model=model, host=host or self.host, status=status, reason=reason,
                        attempts=attempts, retryable=retryable)

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

    def api(self) -> Any:
        """The ``openai`` client behind this one (endpoint, key and timeout set; its retries off), for
        calls this client does not wrap (the Batch API's files and batches)."""
        return self._client()

    def redact(self, text: str) -> str:
        """``text`` without this client's key (for messages quoting the endpoint's answers)."""
        return scrub(text, self._key)


def _is_endpoint_failure(reason: str, status: int | None, retryable: bool) -> bool:
    """Whether a failed call says the endpoint (not this one request) is unusable.

    Retries that ran out (connection, timeout, 429, 5xx) and a refused key or unknown model (401, 403,
    404) count; a request the server rejects on its own merits (400 context too long, 422) does not, nor
    does a wait for our own rate limiter.
    """
    if reason == "limiter":
        return False
    return retryable or status in (401, 403, 404)


def _http_response_class() -> Any:
    """The ``Response`` class of the HTTP library the installed ``openai`` SDK uses (httpx, or httpx2 in
    openai 3), found from its public ``DefaultHttpxClient``, a subclass of that library's ``Client``."""
    import importlib

    from openai import DefaultHttpxClient

    library = next(cls.__module__.split(".")[0] for cls in DefaultHttpxClient.__mro__[1:]
                   if cls.__name__ == "Client")
    return importlib.import_module(library).Response


def _what(reason: str, status: int | None, timeout_s: float) -> str:
    if reason == "http":
        return f"HTTP {status}"
    if reason == "timeout":
        return f"timed out (no answer within {timeout_s:g} s)"
    if reason == "limiter":
        return "no rate-limit/concurrency slot in time"
    if reason == "bad_response":
        return "malformed response"
    return "connection failed"


def _error_detail(body: object, fallback: str) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        message = body.get("message") or (error.get("message") if isinstance(error, dict) else error)
        return str(message) if message else json.dumps(body, ensure_ascii=False, default=str)
    return str(body) if body else fallback


#: Where providers put the prompt tokens served from their prompt cache, in the order we look:
#: OpenAI, Azure and vLLM (``--enable-prompt-tokens-details``) nest ``cached_tokens`` under
#: ``prompt_tokens_details``; the Responses API's shape uses ``input_tokens_details``; DeepSeek reports
#: ``prompt_cache_hit_tokens``, Anthropic-compatible layers ``cache_read_input_tokens``, Moonshot ``cached_tokens``.
_CACHED_SPELLINGS = (("prompt_tokens_details", "cached_tokens"), ("input_tokens_details", "cached_tokens"),
                     ("prompt_cache_hit_tokens",), ("cache_read_input_tokens",), ("cached_tokens",))


def _count(value: Any) -> int:
    """A token count from a usage field: a non-negative int, or 0 for anything else (``None``, text, junk)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return max(int(value), 0)


def _cached_prompt_tokens(usage: dict[str, Any]) -> int:
    for path in _CACHED_SPELLINGS:
        value: Any = usage
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            return _count(value)
    return 0


def _json_tokens(usage: Any) -> dict[str, int]:
    usage = usage if isinstance(usage, dict) else {}
    details = usage.get("completion_tokens_details") if isinstance(usage.get("completion_tokens_details"), dict) \
        else {}
    cached = _cached_prompt_tokens(usage)
    if "prompt_tokens" in usage:
        prompt = _count(usage.get("prompt_tokens"))
    else:  # the Anthropic shape: ``input_tokens`` leaves out what was read from or written to the cache
        prompt = _count(usage.get("input_tokens")) + cached + _count(usage.get("cache_creation_input_tokens"))
    completion = _count(usage.get("completion_tokens", usage.get("output_tokens")))
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "reasoning_tokens": _count(details.get("reasoning_tokens")),
            # never more than the prompt: a provider's count of a cache hit cannot make a prompt cost less than 0
            "cached_prompt_tokens": min(cached, prompt)}


class BadResponse(ValueError):
    """A 200 answer that is not a usable completion (no choices, no message)."""


def _chat_payload(response: dict[str, Any]) -> dict[str, Any]:
    """The part of a chat completion's JSON we keep (and cache): the first choice's message, normalised.

    Raises:
        BadResponse: The answer has no choice with a message (retried like a 5xx).
    """
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict) \
            or not isinstance(choices[0].get("message"), dict):
        raise BadResponse(f"the 200 answer has no choices: {json.dumps(response)[:200]}")
    choice = choices[0]
    raw = choice["message"]
    calls = []
    for i, call in enumerate(raw.get("tool_calls") or []):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):  # custom (non-function) tool calls are not part of this benchmark
            continue
        arguments = function.get("arguments")
        calls.append({"id": call.get("id") or f"call_{i}", "type": "function",
                      "function": {"name": function.get("name"),
                                   "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)}})
    message: dict[str, Any] = {"role": "assistant", "content": raw.get("content"), "tool_calls": calls}
    reasoning = raw.get("reasoning_content") or raw.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        message["reasoning_content"] = reasoning
    return {"message": message, "finish_reason": choice.get("finish_reason"),
            "usage": _json_tokens(response.get("usage")), "model": response.get("model")}


def _embeddings_payload(response: Any) -> dict[str, Any]:
    data = sorted(response.data, key=lambda item: item.index)
    usage = getattr(response, "usage", None)
    return {"vectors": [list(item.embedding) for item in data],
            "usage": {"prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0, "completion_tokens": 0,
                      "reasoning_tokens": 0}}
