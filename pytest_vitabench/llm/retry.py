"""When to retry an LLM request and how long to wait first.

Retried: HTTP 408, 409, 429 and 5xx, timeouts and connection errors; any other 4xx is the request's fault.
The backoff's jitter is seeded from the request itself, so a run is reproducible while different requests
still spread out instead of retrying in lockstep.
"""

from __future__ import annotations

import email.utils
import hashlib
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

RETRYABLE_STATUS = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait, or ``None`` if it did not say (or said nonsense)."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            value = float(raw_ms) / 1000
            if value >= 0:
                return value
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    raw = raw.strip()
    try:
        value = float(raw)
        return value if value >= 0 else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
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
    try:
        value = float(text)
        return value if value >= 0 else None
    except ValueError:
        pass
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
