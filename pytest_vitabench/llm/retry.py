"""What a failed LLM request says: whether to retry it, and how long to wait first.

Retried: HTTP 408, 409, 429 and 5xx, timeouts, connection errors and malformed answers; any other 4xx, and a 5xx
whose body is a validation error of the request, is the request's fault. The backoff's jitter is seeded from the
request itself, so a run is reproducible while different requests still spread out instead of retrying in
lockstep. :mod:`.limits` acts on the :class:`Failure`.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

from .ratelimit import LimiterTimeout
from .responses import BadResponse

#: Retried besides every 5xx: timeout, conflict, too many requests.
RETRYABLE_STATUS = frozenset({408, 409, 429})
#: A server error whose body is a request validation error (pydantic's "7 validation errors", FastAPI's
#: RequestValidationError, as llama-cpp-python's server answers a message shape it does not accept): the
#: same request gets the same answer, so it is refused, not retried.
_VALIDATION = re.compile(r"\b\d+ validation errors?\b|\bvalidation errors? for\b|RequestValidationError")


def _seconds(text: object) -> float | None:
    """A number of seconds, or ``None`` for anything but a non-negative number."""
    try:
        value = float(str(text).strip())
    except ValueError:
        return None
    return value if value >= 0 else None


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait, or ``None`` if it did not say (or said nonsense)."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    if (ms := _seconds(lowered.get("retry-after-ms"))) is not None:
        return ms / 1000
    raw = lowered.get("retry-after")
    if raw is None or (seconds := _seconds(raw)) is not None:
        return seconds if raw is not None else None
    try:  # an HTTP date
        when = email.utils.parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


#: A 429 message about tokens, not requests: OpenAI's "Rate limit reached ... on tokens per min (TPM)", Azure's
#: "Token rate limit", Anthropic's "input tokens per minute", or a bare "TPM".
_TOKEN_LIMIT = re.compile(r"\btokens?\b[^.]{0,40}\b(per|/)\s*(min|minute|day|second|sec)\b|\bTPM\b|\btoken rate limit",
                          re.IGNORECASE)
#: "Please try again in 1.234s" / "in 20ms" / "in 6m0s" in a 429 message.
_TRY_AGAIN = re.compile(r"try again in\s+((?:\d+(?:\.\d+)?\s*(?:ms|h|m|s)\s*)+)", re.IGNORECASE)
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|h|m|s)")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def names_token_limit(message: str, headers: Mapping[str, str] | None = None) -> bool:
    """Whether a 429 is about a token limit (its message says so, or the token headers show none left)."""
    if _TOKEN_LIMIT.search(message or ""):
        return True
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    return str(lowered.get("x-ratelimit-remaining-tokens", "")).strip() == "0"


def parse_duration(text: str) -> float | None:
    """Seconds in a provider's duration (``"1.5s"``, ``"20ms"``, ``"6m0s"``, ``"1h2m"``, a bare number of
    seconds), or ``None`` for anything else."""
    text = (text or "").strip()
    if (seconds := _seconds(text)) is not None:
        return seconds
    parts = _DURATION_PART.findall(text)
    if not parts or _DURATION_PART.sub("", text).strip():
        return None
    return sum(float(number) * _UNIT_S[unit] for number, unit in parts)


def token_reset_wait(message: str, headers: Mapping[str, str] | None = None) -> float | None:
    """Seconds until a token-limit 429 clears: ``Retry-After`` (see :func:`parse_retry_after`), else the
    ``x-ratelimit-reset-tokens`` header, else the message's "try again in ..."; ``None`` if none says."""
    retry_after = parse_retry_after(headers)
    if retry_after is not None:
        return retry_after
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    reset = parse_duration(str(lowered.get("x-ratelimit-reset-tokens", "")))
    if reset is not None:
        return reset
    found = _TRY_AGAIN.search(message or "")
    return parse_duration(found.group(1)) if found else None


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with "equal jitter": half the delay fixed, half drawn at random."""

    base_s: float = 1.0
    max_s: float = 60.0
    retry_after_max_s: float = 600.0

    def delay(self, attempt: int, *, retry_after: float | None = None, salt: str = "") -> float:
        """Seconds to wait before retry ``attempt + 1``: the server's ``retry_after`` (capped), or the backoff
        with its jitter seeded by ``salt`` (the request)."""
        if retry_after is not None:
            return min(retry_after, self.retry_after_max_s)
        ceiling = min(self.max_s, self.base_s * (2 ** attempt))
        seed = int.from_bytes(hashlib.sha256(f"{salt}:{attempt}".encode()).digest()[:8], "big")
        return ceiling / 2 + random.Random(seed).uniform(0, ceiling / 2)


@dataclass(frozen=True)
class Failure:
    """A failed attempt, as the retry policy and the circuit breakers see it.

    Attributes:
        reason: ``http``, ``timeout``, ``connection``, ``bad_response`` or ``limiter`` (an
            :class:`~.errors.LLMError`'s ``reason``).
        retry_after: The seconds the server asked us to wait; ``None``: back off as usual.
        detail: The server's error message (not yet scrubbed of secrets).
        token_limit: A 429 about a token limit: every process waits for the provider's token window.
    """

    reason: str
    status: int | None = None
    retryable: bool = True
    retry_after: float | None = None
    detail: str = ""
    token_limit: bool = False

    @property
    def blames_endpoint(self) -> bool:
        """Whether it says the endpoint is unusable: not a request rejected on its own merits (400 context
        too long, 422), nor a wait for our own limiter."""
        return self.reason != "limiter" and (self.retryable or self.status in (401, 403, 404))

    def describe(self, timeout_s: float) -> str:
        if self.reason == "http":
            return f"HTTP {self.status}"
        if self.reason == "timeout":
            return f"timed out (no answer within {timeout_s:g} s)"
        if self.reason == "limiter":
            return "no rate-limit/concurrency slot in time"
        if self.reason == "bad_response":
            return "malformed response"
        return "connection failed"


def classify(exc: BaseException) -> Failure | None:
    """The :class:`Failure` an exception of one attempt stands for; ``None`` for one that is not an LLM
    request's failure (a bug, to be raised as it is)."""
    import openai

    if isinstance(exc, LimiterTimeout) or isinstance(exc.__cause__, LimiterTimeout):
        return Failure("limiter", retryable=False, detail=str(exc.__cause__ or exc))
    # A 200 whose body is not JSON or has no choices (a gateway's HTML page) is a server fault, like a 5xx.
    if isinstance(exc, (BadResponse, json.JSONDecodeError, openai.APIResponseValidationError)):
        return Failure("bad_response", detail=str(exc))
    if isinstance(exc, openai.APITimeoutError):
        return Failure("timeout")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        return Failure("connection", detail=f"{type(cause).__name__}: {cause}" if cause else "")
    if not isinstance(exc, openai.APIStatusError):
        return None
    status, headers, detail = exc.status_code, exc.response.headers, _error_detail(exc.body, exc.message)
    if status == 429 and names_token_limit(detail, headers):
        return Failure("http", status, retry_after=token_reset_wait(detail, headers), detail=detail, token_limit=True)
    retryable = status in RETRYABLE_STATUS or (status >= 500 and not _VALIDATION.search(detail))
    return Failure("http", status, retryable, parse_retry_after(headers) if retryable else None, detail)


def _error_detail(body: object, fallback: str) -> str:
    if isinstance(body, dict):
        error = body.get("error")
        message = body.get("message") or (error.get("message") if isinstance(error, dict) else error)
        return str(message) if message else json.dumps(body, ensure_ascii=False, default=str)
    return str(body) if body else fallback
