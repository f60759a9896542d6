"""A local stub of OpenAI's Batch API (files + batches endpoints) that also answers chat completions, on 127.0.0.1.

Both paths answer from one function of the request body, so a synchronous judge and a batch judge get the
same answers to the same requests:

- ``POST /v1/chat/completions``: the answer at once (the plugin's preflight ping gets "OK", unrecorded);
- ``POST /v1/files`` (multipart, ``purpose=batch``): stores the JSONL input;
- ``POST /v1/batches``: creates a batch (counted in ``creations``); it completes after ``polls_to_finish``
  retrievals, or never while ``hold`` is set;
- ``GET /v1/batches``: an empty list (what the preflight asks);
- ``GET /v1/batches/{id}``: its status (``in_progress`` / ``completed``, with ``output_file_id``);
- ``GET /v1/files/{id}/content``: the output JSONL, one line per input line (``failing`` custom ids get an
  error line instead).

``StubBatchAPI(batch=False)`` answers 404 on the files and batches endpoints, like an endpoint (vLLM, a
proxy) without a Batch API.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(request: dict[str, Any], content: str) -> dict[str, Any]:
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": request.get("model", "stub"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


class StubBatchAPI:
    """The stub server.

    Args:
        answer: The reply text for a chat request body.
        batch: Serve the files and batches endpoints (``False``: 404, no Batch API).
        polls_to_finish: Retrievals of a batch before it reports ``completed``.
    """

    def __init__(self, answer: Callable[[dict[str, Any]], str], *, batch: bool = True, polls_to_finish: int = 1):
        self.answer = answer
        self.batch = batch
        self.polls_to_finish = polls_to_finish
        self.hold = False
        self.failing: set[str] = set()
        self.chat_requests: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.creations = 0
        self.uploads = 0
        self.downloads = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any, *, raw: bytes | None = None) -> None:
                data = raw if raw is not None else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if raw is None else "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _no_batch_api(self) -> bool:
                if stub.batch:
                    return False
                self._send(404, {"error": {"message": f"Not Found: {self.path}", "type": "invalid_request_error"}})
                return True

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                path = self.path.split("?")[0].rstrip("/")
                if path.endswith("/chat/completions"):
                    request = json.loads(body)
                    if self.headers.get("X-Vitabench-Preflight"):  # the plugin's ping: not a judge request
                        self._send(200, completion(request, "OK"))
                        return
                    with stub._lock:
                        stub.chat_requests.append(request)
                    self._send(200, completion(request, stub.answer(request)))
                elif path.endswith("/files"):
                    if self._no_batch_api():
                        return
                    with stub._lock:
                        stub.uploads += 1
                        file_id = f"file-{len(stub.files) + 1}"
                        stub.files[file_id] = _multipart_file(self.headers.get("Content-Type", ""), body)
                    self._send(200, {"id": file_id, "object": "file", "bytes": len(stub.files[file_id]),
                                     "created_at": 0, "filename": "input.jsonl", "purpose": "batch",
                                     "status": "processed"})
                elif path.endswith("/batches"):
                    if self._no_batch_api():
                        return
                    request = json.loads(body)
                    with stub._lock:
                        if request.get("input_file_id") not in stub.files:
                            self._send(400, {"error": {"message": "no such input file"}})
                            return
                        stub.creations += 1
                        batch_id = f"batch_{stub.creations}"
                        stub.batches[batch_id] = {"input_file_id": request["input_file_id"], "polls": 0,
                                                  "endpoint": request.get("endpoint")}
                    self._send(200, stub._batch_object(batch_id))
                else:
                    self._send(404, {"error": {"message": f"Not Found: {self.path}"}})

            def do_GET(self) -> None:  # noqa: N802
                if self._no_batch_api():
                    return
                parts = self.path.split("?")[0].strip("/").split("/")
                if parts[-1] == "batches":  # the list (the preflight's probe)
                    self._send(200, {"object": "list", "data": [], "has_more": False})
                elif len(parts) >= 3 and parts[-2] == "batches":
                    with stub._lock:
                        batch = stub.batches.get(parts[-1])
                        if batch is not None and not stub.hold:
                            batch["polls"] += 1
                    if batch is None:
                        self._send(404, {"error": {"message": "no such batch"}})
                    else:
                        self._send(200, stub._batch_object(parts[-1]))
                elif len(parts) >= 4 and parts[-1] == "content" and parts[-3] == "files":
                    with stub._lock:
                        data = stub.files.get(parts[-2])
                        stub.downloads += 1
                    if data is None:
                        self._send(404, {"error": {"message": "no such file"}})
                    else:
                        self._send(200, None, raw=data)
                else:
                    self._send(404, {"error": {"message": f"Not Found: {self.path}"}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def batch_requests(self) -> list[dict[str, Any]]:
        """Every request line of every batch created, in order."""
        out = []
        for batch in self.batches.values():
            out += [json.loads(line) for line in self.files[batch["input_file_id"]].decode().splitlines() if line]
        return out

    def _batch_object(self, batch_id: str) -> dict[str, Any]:
        """The batch as the API shows it (called with the lock held or after it)."""
        batch = self.batches[batch_id]
        done = batch["polls"] >= self.polls_to_finish
        out: dict[str, Any] = {"id": batch_id, "object": "batch", "endpoint": batch["endpoint"],
                               "input_file_id": batch["input_file_id"], "completion_window": "24h",
                               "created_at": 0, "status": "completed" if done else "in_progress"}
        if done:
            if "output_file_id" not in batch:
                batch["output_file_id"] = self._write_output(batch)
            out["output_file_id"] = batch["output_file_id"]
        return out

    def _write_output(self, batch: dict[str, Any]) -> str:
        lines = []
        for line in self.files[batch["input_file_id"]].decode().splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            if item["custom_id"] in self.failing:
                lines.append({"id": "r", "custom_id": item["custom_id"], "response": {
                    "status_code": 500, "body": {"error": {"message": "stub: this one failed"}}}, "error": None})
                continue
            body = completion(item["body"], self.answer(item["body"]))
            lines.append({"id": "r", "custom_id": item["custom_id"], "response": {"status_code": 200, "body": body},
                          "error": None})
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = "".join(json.dumps(x) + "\n" for x in lines).encode()
        return file_id

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _multipart_file(content_type: str, body: bytes) -> bytes:
    """The ``file`` part of a multipart/form-data body."""
    boundary = content_type.split("boundary=", 1)[1].strip().strip('"').encode()
    for part in body.split(b"--" + boundary):
        head, _, data = part.partition(b"\r\n\r\n")
        if b'name="file"' in head:
            return data[:-2] if data.endswith(b"\r\n") else data
    raise ValueError("no file part in the upload")
