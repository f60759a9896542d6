"""Every limit a request passes on its way to the endpoint, behind the one seam the client calls.

For each attempt: this process's adaptive concurrency, the run's in-flight budget, and, as the request goes
on the wire, its token charge and its request-rate slot (in files, or in Redis with ``--vita-limits-url``).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .adaptive import AdaptiveConcurrency, Slot
from .ratelimit import Limiter
from .redis_limits import LEASE_MARGIN_S, RedisLimiter
from .settings import LLMSettings
from .tokenrate import TokenBudget, estimate_request_tokens

log = logging.getLogger("pytest_vitabench.llm")


class RequestLimits:
    """The limits of one client: adaptive concurrency, the run's in-flight, request-rate and token budgets.

    Raises:
        ValueError: ``settings.tpm`` without ``count_tokens``; a ``limits_url`` whose server cannot be reached.
    """

    def __init__(self, settings: LLMSettings, count_tokens: Callable[[str], int] | None):
        s = settings
        self.limiter: Limiter | RedisLimiter = Limiter(
            s.state_dir, rpm=s.rpm, max_concurrency=s.max_concurrency, window_s=s.rpm_window_s,
            max_wait_s=s.max_wait_s) if not s.limits_url else RedisLimiter(
            s.limits_url, rpm=s.rpm, max_concurrency=s.max_concurrency, window_s=s.rpm_window_s,
            max_wait_s=s.max_wait_s, lease_s=s.timeout_s + LEASE_MARGIN_S)
        self.token_budget = TokenBudget(s.state_dir, tokens=s.tpm, window_s=s.tpm_window_s, max_wait_s=s.max_wait_s)
        if s.tpm and count_tokens is None:
            raise ValueError("a tokens-per-minute budget (tpm) needs count_tokens, the counter its estimates use "
                             "(pytest_vitabench.memory.tokens.count_tokens)")
        # Every turn of a conversation re-sends its history and system prompt: the same strings to count.
        self._count_tokens = functools.lru_cache(maxsize=256)(count_tokens) if count_tokens is not None else None
        self.adaptive = AdaptiveConcurrency(ceiling=s.max_concurrency)
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

    def passage(self, model: str, request: dict[str, Any]) -> Passage:
        """The limits one request passes, over all its attempts."""
        return Passage(self, model, request)


class Passage:
    """One request's way through the limits: :meth:`attempt` around each attempt, then :meth:`answered`
    or :meth:`throttled`."""

    def __init__(self, limits: RequestLimits, model: str, request: dict[str, Any]):
        self._limits = limits
        self._model = model
        self._request = request
        self._estimate: int | None = None
        self.slot: Slot | None = None
        self.ticket: int | None = None

    @contextmanager
    def attempt(self) -> Iterator[None]:
        """Hold an adaptive and an in-flight slot for the body, with the token charge of the request ready for
        :meth:`RequestLimits.take_wire_slot`."""
        limits = self._limits
        self.slot = self.ticket = None
        with limits.adaptive.slot() as self.slot, limits.limiter.concurrency_slot():
            if limits.token_budget.tokens:
                if self._estimate is None:
                    assert limits._count_tokens is not None  # checked with tpm in RequestLimits
                    self._estimate = estimate_request_tokens(self._request, limits._count_tokens)
                learned = limits._estimate_error.get(self._model, 0)
                limits._charge.tokens, limits._charge.ticket = max(self._estimate // 2, self._estimate + learned), None
            try:
                yield
            finally:
                self.ticket, limits._charge.tokens = getattr(limits._charge, "ticket", None), None

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
            before = limits._estimate_error.get(self._model)
            # a moving average over about the last ten answers: one model's completions vary, slowly
            limits._estimate_error[self._model] = round(error if before is None else 0.9 * before + 0.1 * error)

    def throttled(self, host: str) -> None:
        """A 429: the refused request spent no tokens, and this process sends fewer requests at once."""
        limits = self._limits
        limits.token_budget.correct(self.ticket, 0)
        if self.slot is not None and limits.adaptive.throttled(self.slot):
            log.info("429 from %s: requests in flight from this process cut to %s", host, limits.adaptive.limit)
