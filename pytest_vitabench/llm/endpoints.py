"""One base URL of a client: where it is (without credentials), its ``openai`` SDK client, its circuit
breaker and its load; and the plain-JSON chat request the client sends through that SDK.

The circuit breaker stops sending new work to an endpoint that keeps failing. Without it a dead endpoint
costs every remaining item its full retry budget, so a run of hundreds of items takes hours to fail. The
open state is also written to the run's shared state directory, so every xdist worker stops, not only the
one that saw the failures; a new run (or a resume) starts closed.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .responses import BadResponse

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"


def endpoint_host(url: str) -> str:
    """``host[:port]`` of ``url``: never the user-info part, which may carry credentials."""
    parts = urlsplit(url if "//" in url else f"//{url}")
    host = parts.hostname or "?"
    return f"{host}:{parts.port}" if parts.port else host


def endpoint_url(base_url: str | None) -> str:
    """The effective endpoint of ``base_url`` (``None``: ``$OPENAI_BASE_URL`` or OpenAI's), without
    credentials, for cache keys and messages."""
    url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL).rstrip("/")
    parts = urlsplit(url)
    return f"{parts.scheme}://{endpoint_host(url)}{parts.path}"


#: Consecutive failed calls to one endpoint before the breaker opens.
DEFAULT_THRESHOLD = 5
#: How often a breaker looks whether another worker opened it (seconds).
SHARED_CHECK_S = 0.5


class CircuitOpen(RuntimeError):
    """Raised instead of a request while the breaker of the endpoint is open."""


class CircuitBreaker:
    """Counts consecutive infrastructure failures of one endpoint and opens after ``threshold``.

    Args:
        endpoint: The endpoint it guards (without credentials); names the shared state file.
        threshold: Consecutive failures that open it; ``0`` disables the breaker.
        state_dir: The run's shared directory (all xdist workers), or ``None`` for this process only.
    """

    def __init__(self, endpoint: str, *, threshold: int = DEFAULT_THRESHOLD, state_dir: Path | None = None):
        self.endpoint = endpoint
        self.threshold = threshold
        digest = hashlib.sha256(endpoint.encode()).hexdigest()[:16]
        self._file = Path(state_dir) / f"breaker-{digest}.open" if state_dir is not None else None
        self._lock = threading.Lock()
        self._failures = 0
        self._reason: str | None = None
        self._file_checked = -math.inf

    def reason(self) -> str | None:
        """Why the breaker is open, or ``None`` while it is closed."""
        if self.threshold <= 0:
            return None
        with self._lock:
            if self._reason is None and self._file is not None:
                # Asked before every request: another worker's opening is looked for at most every
                # SHARED_CHECK_S (a stat per request was a visible share of a request's CPU at 256 in flight).
                now = time.monotonic()
                if now - self._file_checked >= SHARED_CHECK_S:
                    self._file_checked = now
                    if self._file.exists():
                        try:
                            self._reason = self._file.read_text(encoding="utf-8") or "opened by another worker"
                        except OSError:
                            return None
            return self._reason

    def record_success(self) -> None:
        with self._lock:
            self._failures = 0

    def record_failure(self, message: str) -> None:
        """Count one failed call; open the breaker, with ``message`` as its reason, at the ``threshold``-th."""
        with self._lock:
            self._failures += 1
            if self.threshold <= 0 or self._reason is not None or self._failures < self.threshold:
                return
            self._reason = message
        if self._file is not None:
            try:
                self._file.parent.mkdir(parents=True, exist_ok=True)
                self._file.write_text(message, encoding="utf-8")
            except OSError:  # sharing is best effort: this process stops anyway
                pass


class Endpoint:
    """One base URL of a client (``None``: ``$OPENAI_BASE_URL`` or OpenAI's): its SDK client (built on first
    use), circuit breaker and load."""

    def __init__(self, base_url: str | None, breaker: CircuitBreaker):
        self.base_url = base_url
        self.url = endpoint_url(base_url)
        self.host = endpoint_host(self.url)
        self.breaker = breaker
        self.openai: Any = None
        #: Whether its client's ``post`` takes an encoded body (known once the client is built).
        self.takes_content = False
        self.in_flight = 0
        #: Attempts sent to it: the tie-break, so that requests one at a time alternate between endpoints.
        self.sent = 0
        self._lock = threading.Lock()

    def sdk(self, key: str, timeout_s: float, on_the_wire: Callable[[Any], None] | None) -> Any:
        """The ``openai`` client of this endpoint, built on first use with its retries off (ours count every
        attempt). ``on_the_wire`` runs in the HTTP client's request hook, i.e. after the SDK has built the
        request and right before it goes on the wire."""
        with self._lock:
            if self.openai is None:
                from openai import DefaultHttpxClient, OpenAI  # the openai package loads only when a call is made

                http_client = DefaultHttpxClient(event_hooks={"request": [on_the_wire]}) if on_the_wire else None
                self.openai = OpenAI(base_url=self.base_url, api_key=key, timeout=timeout_s, max_retries=0,
                                     http_client=http_client)
                self.takes_content = takes_content(self.openai)
            return self.openai

    def close(self) -> None:
        with self._lock:
            if self.openai is not None:
                self.openai.close()
                self.openai = None


#: Request keys that say how a request is sent, not what is asked, and the ``openai`` request option each
#: becomes; they change no answer (and may hold secrets, e.g. an Azure ``api-key`` header).
TRANSPORT_KEYS = {"extra_headers": "headers", "extra_query": "params", "timeout": "timeout"}


def request_body(request: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body of a chat ``request``, as POSTed alone or in a batch line: ``extra_body`` merged in, the
    :data:`TRANSPORT_KEYS` left out."""
    body = {k: v for k, v in request.items() if k not in TRANSPORT_KEYS and k != "extra_body"}
    return {**body, **(request.get("extra_body") or {})}


def post_chat(sdk: Any, request: dict[str, Any], encode: Callable[[dict[str, Any]], bytes] | None = None
              ) -> dict[str, Any]:
    """POST a chat completion as a plain JSON body through ``sdk`` and return the answer's JSON.

    ``chat.completions.create`` walks the request through the SDK's typed-dict transform and builds pydantic
    models of the answer; our requests are plain JSON already. ``post`` keeps the SDK's headers, auth,
    timeout and status-error exceptions. ``encode``: the body's bytes (:class:`~.body.BodyEncoder`), for an
    SDK whose ``post`` takes ``content`` (:func:`takes_content`); otherwise the SDK encodes it.
    """
    options = {option: request[name] for name, option in TRANSPORT_KEYS.items() if request.get(name) is not None}
    body = request_body(request)
    sent = {"content": encode(body)} if encode is not None else {"body": body}
    response = sdk.post("/chat/completions", **sent, options=options, cast_to=_http_response_class())
    data = response.json()
    if not isinstance(data, dict):
        raise BadResponse(f"the 200 answer is not a JSON object: {str(data)[:200]}")
    return data


def takes_content(sdk: Any) -> bool:
    """Whether the SDK's ``post`` takes a body already encoded (``content``; older releases take ``body`` only)."""
    try:
        return "content" in inspect.signature(sdk.post).parameters
    except (TypeError, ValueError):
        return False


def _http_response_class() -> Any:
    """The ``Response`` class of the HTTP library the installed ``openai`` SDK uses (httpx, or httpx2 in
    openai 3), found from its public ``DefaultHttpxClient``, a subclass of that library's ``Client``."""
    from openai import DefaultHttpxClient

    library = next(cls.__module__.split(".")[0] for cls in DefaultHttpxClient.__mro__[1:]
                   if cls.__name__ == "Client")
    return importlib.import_module(library).Response
