"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests, scripted per test.

Each queued reply is one of:

- a chat-completion ``message`` dict (``{"content": ..., "tool_calls": [...]}``); the optional keys
  ``finish_reason`` and ``usage`` override those of the completion;
- an ``(http_status, body)`` or ``(http_status, body, headers)`` tuple, e.g. ``(429, {...}, {"Retry-After": "1"})``;
- a :class:`Reply`, which can also hold the answer back for ``delay`` seconds (to provoke client timeouts).

Preflight pings (header ``X-Vitabench-Preflight``) are answered from ``preflight_replies`` (default: a
200 completion) and recorded in ``preflights``, never in ``requests``. ``stub.delay`` holds back every reply.
Requests to ``.../embeddings`` answer with deterministic vectors
unless ``embedding_replies`` holds a scripted reply. Every request body, its headers, path and arrival time
(``time.time()``) are recorded.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """A scripted answer: a chat ``message`` (status 200) or an HTTP ``status`` with ``body``."""

    message: dict[str, Any] | None = None
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    #: Sent as the body verbatim instead of ``message``/``body`` (a body that is not JSON at all).
    raw: bytes | None = None


class StubLLM:
    def __init__(self, delay: float = 0.0) -> None:
        self.replies: list[Any] = []
        self.embedding_replies: list[Any] = []
        self.requests: list[dict[str, Any]] = []
        self.preflights: list[dict[str, Any]] = []
        self.preflight_replies: list[Any] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.times: list[float] = []
        self.spans: list[tuple[float, float]] = []
        self.delay = delay
        #: Answers every chat request the queue does not (a function of the request body, like a queued one).
        self.responder: Any = None
        #: Requests being answered right now, and the most at any moment: counted before an answer leaves, so a
        #: client's next request (sent once it has the answer) never overlaps it.
        self.live = 0
        self.peak_live = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                arrived = time.time()
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                embeddings = self.path.rstrip("/").endswith("/embeddings")
                if self.headers.get("X-Vitabench-Preflight"):
                    # The plugin's preflight ping: kept apart so that tests script and count the run's own
                    # requests only.
                    with stub._lock:
                        stub.preflights.append(body)
                        reply = stub.preflight_replies.pop(0) if stub.preflight_replies else {"content": "OK"}
                    status, payload, headers, _ = _resolve(body, reply)
                    data = json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                with stub._lock:
                    stub.requests.append(body)
                    stub.headers.append(dict(self.headers))
                    stub.paths.append(self.path)
                    stub.times.append(arrived)
                    queue = stub.embedding_replies if embeddings else stub.replies
                    reply = queue.pop(0) if queue else (None if embeddings else stub.responder)
                if reply is None:
                    reply = Reply(body=_embeddings(body)) if embeddings else {"content": "###STOP###"}
                with stub._lock:
                    stub.live += 1
                    stub.peak_live = max(stub.peak_live, stub.live)
                status, payload, headers, delay = _resolve(body, reply)
                delay += stub.delay
                if delay:
                    time.sleep(delay)
                with stub._lock:  # before the answer leaves, so a client's next request cannot overlap it
                    stub.live -= 1
                data = reply.raw if isinstance(reply, Reply) and reply.raw is not None else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass
                with stub._lock:
                    stub.spans.append((arrived, time.time()))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def window_max(self, window_s: float) -> int:
        """The most requests that arrived within any ``window_s``-long span."""
        times = sorted(self.times)
        most, start = 0, 0
        for end, t in enumerate(times):
            while t - times[start] >= window_s:
                start += 1
            most = max(most, end - start + 1)
        return most

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _resolve(request: dict[str, Any], reply: Any) -> tuple[int, Any, dict[str, str], float]:
    """``(status, payload, headers, delay)`` of a scripted reply in any of its accepted forms."""
    if callable(reply):  # a function of the request body, for replies that depend on the role asking
        reply = reply(request)
    if isinstance(reply, tuple):
        status, body, *rest = reply
        return status, body, dict(rest[0]) if rest else {}, 0.0
    if isinstance(reply, Reply):
        if reply.message is not None:
            return reply.status, _completion(request, reply.message), reply.headers, reply.delay
        return reply.status, reply.body, reply.headers, reply.delay
    return 200, _completion(request, reply), {}, 0.0


def _completion(request: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "assistant", "content": None, **message}
    finish_reason = message.pop("finish_reason", None) or ("tool_calls" if message.get("tool_calls") else "stop")
    usage = message.pop("usage", None) or {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18,
                                           "completion_tokens_details": {"reasoning_tokens": 2}}
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": request.get("model", "stub"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": usage,
    }


def embedding(text: str, dims: int = 4) -> list[float]:
    """The stub's deterministic vector for ``text``."""
    digest = hashlib.sha256(text.encode()).digest()
    return [round(b / 255, 6) for b in digest[:dims]]


def _embeddings(request: dict[str, Any]) -> dict[str, Any]:
    texts = request.get("input") or []
    texts = [texts] if isinstance(texts, str) else texts
    return {"object": "list", "model": request.get("model", "stub"),
            "data": [{"object": "embedding", "index": i, "embedding": embedding(str(t))} for i, t in enumerate(texts)],
            "usage": {"prompt_tokens": 3 * len(texts), "total_tokens": 3 * len(texts)}}


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}
