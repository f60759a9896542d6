"""The one error an LLM call raises when it fails for good, and the scrubbing that keeps keys out of it."""

from __future__ import annotations

from .secrets import redact

#: The most of a server's error body quoted in a message.
EXCERPT_CHARS = 300
#: The most quoted of a refusal: its cause may come last (a validation error lists every union member first).
REFUSAL_CHARS = 4000


class LLMError(RuntimeError):
    """An LLM call failed: after its retries, or at once for a request the server refuses (a 4xx).

    The message quotes the start of the server's error, never the API key.

    Attributes:
        host: The endpoint's host (and port), without credentials or path.
        status: The last HTTP status, or ``None`` for a timeout or a connection failure.
        reason: ``http``, ``timeout``, ``connection``, ``bad_response``, ``limiter``, ``circuit_open`` or
            ``batch``.
        retryable: Whether the last failure was of a retryable kind (retries ran out, rather than refused).
    """

    def __init__(self, message: str, *, role: str, model: str, host: str, status: int | None, reason: str,
                 attempts: int, retryable: bool):
        super().__init__(message)
        self.role = role
        self.model = model
        self.host = host
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.retryable = retryable


def scrub(text: str, *secrets: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` without secrets (see :func:`~.secrets.redact`), cut to ``limit`` characters after redaction."""
    text = " ".join(redact(text, *secrets).split())
    return text if len(text) <= limit else text[:limit] + "..."
