"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests, scripted per test.

Each queued reply is a chat-completion ``message`` dict (``{"content": ..., "tool_calls": [...]}``) or
an ``(http_status, body)`` tuple. Every request body and its headers are recorded.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class StubLLM:
    def __init__(self) -> None:
        self.replies: list[Any] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                stub.requests.append(body)
                stub.headers.append(dict(self.headers))
                reply = stub.replies.pop(0) if stub.replies else {"content": "###STOP###"}
                status, payload = reply if isinstance(reply, tuple) else (200, _completion(body, reply))
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _completion(request: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "assistant", "content": None, **message}
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": request.get("model", "stub"),
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18,
                  "completion_tokens_details": {"reasoning_tokens": 2}},
    }


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}
