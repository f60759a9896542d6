"""Every limit a request passes on its way to the endpoint, and what a failed attempt does, behind the one
seam the client calls: here it is decided whether a request may be sent now, and what follows a failure.

For each attempt: an endpoint whose circuit breaker is closed, this process's adaptive concurrency, the run's
in-flight budget, and, as the request goes on the wire, its token charge and its request-rate slot (in files,
or in Redis with ``--vita-limits url``). After a failed one: the breaker counts it, a 429 cuts the adaptive
limit (a token-limit one pauses every process), and the retry policy says how long to wait, or the call
fails with an :class:`~.errors.LLMError`.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .adaptive import AdaptiveConcurrency, Slot
from .endpoints import CircuitBreaker, CircuitOpen, Endpoint, endpoint_url
from .errors import EXCERPT_CHARS, REFUSAL_CHARS, LLMError, scrub
from .ledger import Ledger
from .notices import NOTICES
from .ratelimit import LEASE_MARGIN_S, Limiter, RedisSlots
from .retry import Backoff, Failure, classify
from .settings import LLMSettings, base_urls
from .tokenrate import TokenBudget, estimate_request_tokens

log = logging.getLogger("pytest_vitabench.llm")


class RequestLimits:
    """The limits of one client: its endpoints and their breakers, adaptive concurrency, the run's in-flight,
    request-rate and token budgets, and the retry policy.

    Args:
        ledger: Where retries, errors and the load of several endpoints are counted.
        key: The API key, kept out of every message.
        count_tokens: Tokens of a text, for the estimate charged to ``settings.tpm``.

    Raises:
        ValueError: ``settings.tpm`` without ``count_tokens``; a ``limits_url`` whose server cannot be reached.
    """

    def __init__(self, settings: LLMSettings, ledger: Ledger, *, key: str,
                 count_tokens: Callable[[str], int] | None):
        s = self.settings = settings
        self.ledger = ledger
        self.key = key
        self.endpoints = [Endpoint(url, CircuitBreaker(endpoint_url(url), threshold=s.circuit_breaker,
                                                       state_dir=s.state_dir)) for url in base_urls(s.base_url)]
        self.host = ",".join(e.host for e in self.endpoints)
        rate: dict[str, Any] = {"rpm": s.rpm, "max_concurrency": s.max_concurrency, "window_s": s.rpm_window_s}
        store = RedisSlots(s.limits_url, lease_s=s.timeout_s + LEASE_MARGIN_S, **rate) if s.limits_url else None
        self.limiter = Limiter(s.state_dir, max_wait_s=s.max_wait_s, store=store, **rate)
        self.token_budget = TokenBudget(s.state_dir, tokens=s.tpm, window_s=s.tpm_window_s, max_wait_s=s.max_wait_s)
        if s.tpm and count_tokens is None:
            raise ValueError("a tokens-per-minute budget (tpm) needs count_tokens, the counter its estimates use "
                             "(pytest_vitabench.memory.tokens.count_tokens)")
        # Every turn of a conversation re-sends its history and system prompt: the same strings to count.
        self._count_tokens = functools.lru_cache(maxsize=256)(count_tokens) if count_tokens is not None else None
        self.adaptive = AdaptiveConcurrency(ceiling=s.max_concurrency)
        self.backoff = Backoff(base_s=s.backoff_base_s, max_s=s.backoff_max_s, retry_after_max_s=s.retry_after_max_s)
        #: How many tokens per request the estimate of each model misses, as learned (see Passage.answered).
        self._estimate_error: dict[str, int] = {}
        #: The tokens the request about to be sent by this thread is charged, and its ticket once charged.
        self._charge = threading.local()
        self._lock = threading.Lock()

    @property
    def on_the_wire(self) -> bool:
        """Whether :meth:`take_wire_slot` must run as each request goes on the wire."""
        return bool(self.limiter.rpm or self.token_budget.tokens)

    def take_wire_slot(self, _request: Any = None) -> None:
        """The HTTP client's request hook: charge the tokens and take the rate slot right before the request
        goes on the wire, so the windows we count are the ones the server sees."""
        tokens = getattr(self._charge, "tokens", None)
        if tokens is not None:
            self._charge.ticket = self.token_budget.charge(tokens)
        self.limiter.acquire_rate()

    def _pick_endpoint(self, tried: set[Endpoint]) -> Endpoint:
        """The usable endpoint with the fewest in flight (then sent), untried first; now in flight.
        :class:`CircuitOpen` when every breaker is open."""
        usable = [e for e in self.endpoints if e.breaker.reason() is None]
        if not usable:
            last = self.endpoints[-1].breaker
            raise CircuitOpen(f"circuit breaker open for {last.endpoint} after {last.threshold} consecutive failed "
                              f"calls; not sending more requests in this run. Last failure: {last.reason()}")
        fresh = [e for e in usable if e not in tried] or usable
        with self._lock:
            chosen = min(fresh, key=lambda e: (e.in_flight, e.sent))  # then the first listed
            chosen.in_flight += 1
            chosen.sent += 1
        return chosen


class Passage:
    """One request's way through the limits, over all its attempts: :meth:`attempt` around each, then
    :meth:`answered`, or :meth:`failed` with what went wrong. ``salt`` (or how to compute it, once a retry is
    due) seeds the retry jitter."""

    def __init__(self, limits: RequestLimits, role: str, model: str, request: dict[str, Any],
                 salt: str | Callable[[], str]):
        self._limits = limits
        self.role = role
        self.model = model
        self._request = request
        self._salt = salt
        self._estimate: int | None = None
        self._tried: set[Endpoint] = set()
        self.endpoint: Endpoint | None = None
        self.failures = 0
        self.slot: Slot | None = None
        self.ticket: int | None = None

    @contextmanager
    def attempt(self) -> Iterator[Endpoint]:
        """Pick the endpoint (before every attempt: another worker may have opened a breaker meanwhile), and
        hold an adaptive and an in-flight slot for the body, with the token charge of the request ready for
        :meth:`RequestLimits.take_wire_slot`. :class:`CircuitOpen` when every breaker is open."""
        limits = self._limits
        self.endpoint = endpoint = limits._pick_endpoint(self._tried)
        self._tried.add(endpoint)
        self.slot = self.ticket = None
        try:
            with limits.adaptive.slot() as self.slot, limits.limiter.concurrency_slot():
                if limits.token_budget.tokens:
                    if self._estimate is None:
                        assert limits._count_tokens is not None  # checked with tpm in RequestLimits
                        self._estimate = estimate_request_tokens(self._request, limits._count_tokens)
                    learned = limits._estimate_error.get(self.model, 0)
                    limits._charge.tokens = max(self._estimate // 2, self._estimate + learned)
                    limits._charge.ticket = None
                try:
                    yield endpoint
                finally:
                    self.ticket, limits._charge.tokens = getattr(limits._charge, "ticket", None), None
        finally:
            with limits._lock:
                endpoint.in_flight -= 1
        endpoint.breaker.record_success()
        if len(limits.endpoints) > 1:
            limits.ledger.note_endpoint(endpoint.url)

    def answered(self, usage: dict[str, int]) -> None:
        """The endpoint kept up: charge what the provider counted, and learn how far the model's estimates
        are off so the next charges come closer (never below half the estimate)."""
        limits = self._limits
        limits.adaptive.succeeded()
        if self.ticket is None or self._estimate is None:
            return
        spent = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        limits.token_budget.correct(self.ticket, spent)
        with limits._lock:
            error = spent - self._estimate
            before = limits._estimate_error.get(self.model)
            # a moving average over about the last ten answers: one model's completions vary, slowly
            limits._estimate_error[self.model] = round(error if before is None else 0.9 * before + 0.1 * error)

    def failed(self, exc: Exception) -> float:
        """Tell the limits and breakers of a failed attempt; the seconds to wait before the next one (``0``:
        at once, on another endpoint).

        Raises:
            LLMError: The call fails for good: refused, out of attempts, or every breaker open.
            Exception: ``exc`` itself, when it is not a request's failure.
        """
        limits, s, role, model = self._limits, self._limits.settings, self.role, self.model
        if isinstance(exc, CircuitOpen):
            limits.ledger.note_error(role)
            raise LLMError(f"{role} LLM call (model {model}) not sent: {exc}", role=role, model=model,
                           host=limits.host, status=None, reason="circuit_open", attempts=self.failures,
                           retryable=False) from None
        failure = classify(exc)
        if failure is None:
            raise exc
        self.failures += 1
        endpoint = self.endpoint
        assert endpoint is not None  # only the request itself is classified
        several = len(limits.endpoints) > 1
        if failure.status == 429:  # the refused request spent no tokens, and this process sends fewer at once
            limits.token_budget.correct(self.ticket, 0)
            if self.slot is not None and limits.adaptive.throttled(self.slot):
                log.info("429 from %s: requests in flight from this process cut to %s", limits.host,
                         limits.adaptive.limit)
        elif several and failure.blames_endpoint:
            limits.ledger.note_endpoint(endpoint.url, failed=True)
            # Each failed attempt counts (a 429 says busy, not dead).
            endpoint.breaker.record_failure(f"{endpoint.host}: {failure.describe(s.timeout_s)}")
        if not failure.retryable or self.failures > s.max_retries:
            limits.ledger.note_error(role)
            error = self._error(failure, endpoint.host)
            if not several and failure.blames_endpoint:
                endpoint.breaker.record_failure(str(error))
            raise error from None
        limits.ledger.note_retry(role)
        if several and any(e not in self._tried and e.breaker.reason() is None for e in limits.endpoints):
            log.info("%s call to %s (model %s): %s; retrying at once on another endpoint", role, endpoint.host,
                     model, failure.describe(s.timeout_s))
            self._notice(failure, endpoint.host, 0.0)
            return 0.0
        if callable(self._salt):
            self._salt = self._salt()
        wait = limits.backoff.delay(self.failures - 1, retry_after=failure.retry_after, salt=self._salt)
        if failure.token_limit:  # every process waits for the provider's token window, not only this request
            limits.token_budget.pause(wait)
        log.info("%s call to %s (model %s): %s; retry %d/%d in %.2f s%s", role, limits.host, model,
                 failure.describe(s.timeout_s), self.failures, s.max_retries, wait,
                 " (token limit)" if failure.token_limit else " (Retry-After)" if failure.retry_after is not None
                 else "")
        self._notice(failure, limits.host, wait)
        return wait

    def _notice(self, failure: Failure, host: str, wait: float) -> None:
        s = self._limits.settings
        NOTICES.retrying(role=self.role, host=host, model=self.model, what=failure.describe(s.timeout_s),
                         attempt=self.failures, retries=s.max_retries, wait=wait,
                         timed_out=failure.reason == "timeout", timeout_s=s.timeout_s)

    def _error(self, failure: Failure, host: str) -> LLMError:
        s = self._limits.settings
        refused = "" if failure.retryable else " (not retried)"
        # A refusal is the request's fault and needs its whole cause to be fixed; a hiccup's start says enough.
        detail = scrub(failure.detail, self._limits.key, limit=EXCERPT_CHARS if failure.retryable else REFUSAL_CHARS)
        message = (f"{self.role} LLM call to {host} (model {self.model}) failed after {self.failures} attempt(s): "
                   f"{failure.describe(s.timeout_s)}{refused}{': ' + detail if detail else ''}")
        if failure.status in (401, 403):
            message += f" - check the key in ${s.api_key_env}"
        return LLMError(message, role=self.role, model=self.model, host=host, status=failure.status,
                        reason=failure.reason, attempts=self.failures, retryable=failure.retryable)
