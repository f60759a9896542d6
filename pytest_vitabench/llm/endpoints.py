"""One base URL of a client: where it is (without credentials), its ``openai`` SDK client, its circuit
breaker and its load; and the plain-JSON chat request the client sends through that SDK."""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from .breaker import CircuitBreaker
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


class Endpoint:
    """One base URL of a client (``None``: ``$OPENAI_BASE_URL`` or OpenAI's): its SDK client (built on first
    use), circuit breaker and load."""

    def __init__(self, base_url: str | None, breaker: CircuitBreaker):
        self.base_url = base_url
        self.url = endpoint_url(base_url)
        self.host = endpoint_host(self.url)
        self.breaker = breaker
        self.openai: Any = None
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
            return self.openai

    def close(self) -> None:
        with self._lock:
            if self.openai is not None:
                self.openai.close()
                self.openai = None


def post_chat(sdk: Any, request: dict[str, Any]) -> dict[str, Any]:
    """POST a chat completion as a plain JSON body through ``sdk`` and return the answer's JSON.

    ``chat.completions.create`` walks the request through the SDK's typed-dict transform and builds pydantic
    models of the answer; our requests are plain JSON already. ``post`` keeps the SDK's headers, auth,
    timeout and status-error exceptions.
    """
    body = dict(request)
    extra_body = body.pop("extra_body", None) or {}
    options: dict[str, Any] = {}
    for name, option in (("extra_headers", "headers"), ("extra_query", "params"), ("timeout", "timeout")):
        if body.get(name) is not None:
            options[option] = body.pop(name)
    response = sdk.post("/chat/completions", body={**body, **extra_body}, options=options,
                        cast_to=_http_response_class())
    data = response.json()
    if not isinstance(data, dict):
        raise BadResponse(f"the 200 answer is not a JSON object: {str(data)[:200]}")
    return data


def _http_response_class() -> Any:
    """The ``Response`` class of the HTTP library the installed ``openai`` SDK uses (httpx, or httpx2 in
    openai 3), found from its public ``DefaultHttpxClient``, a subclass of that library's ``Client``."""
    from openai import DefaultHttpxClient

    library = next(cls.__module__.split(".")[0] for cls in DefaultHttpxClient.__mro__[1:]
                   if cls.__name__ == "Client")
    return importlib.import_module(library).Response
