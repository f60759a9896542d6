"""A stand-in for the Hugging Face Hub on 127.0.0.1: the endpoints ``hf_hub_download`` of a dataset file calls.

``HEAD`` and ``GET /datasets/{repo}/resolve/{revision}/{filename}``, answered from ``files``
(``{(repo, commit): {filename: bytes}}``) and ``refs`` (``{(repo, branch or tag): commit}``), with the headers the
client reads (``X-Repo-Commit``, ``ETag``, ``Content-Length``) and the Hub's error codes (``X-Error-Code``:
``RepoNotFound``, ``RevisionNotFound``, ``EntryNotFound``), which the client turns into its typed errors. Every
request's method, path and headers are recorded.
"""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote


class StubHub:
    def __init__(self) -> None:
        self.files: dict[tuple[str, str], dict[str, bytes]] = {}
        self.refs: dict[tuple[str, str], str] = {}
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
                self._answer(body=False)

            def do_GET(self) -> None:  # noqa: N802
                self._answer(body=True)

            def _answer(self, body: bool) -> None:
                stub.requests.append((self.command, self.path, dict(self.headers)))
                status, headers, content = stub.resolve(unquote(self.path.split("?")[0]))
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                if body:
                    self.wfile.write(content)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def publish(self, repo: str, commit: str, files: dict[str, bytes], *refs: str) -> None:
        """Serve ``files`` at ``commit`` of the dataset ``repo``, also under each branch or tag in ``refs``."""
        self.files[(repo, commit)] = files
        for ref in refs:
            self.refs[(repo, ref)] = commit

    def resolve(self, path: str) -> tuple[int, dict[str, str], bytes]:
        parts = path.strip("/").split("/")
        if len(parts) < 6 or parts[0] != "datasets" or parts[3] != "resolve":
            return 404, {"X-Error-Code": "EntryNotFound"}, b"not a dataset file URL"
        repo, revision, filename = f"{parts[1]}/{parts[2]}", parts[4], "/".join(parts[5:])
        if not any(key[0] == repo for key in self.files):
            return 401, {"X-Error-Code": "RepoNotFound"}, b"Repository not found"
        commit = self.refs.get((repo, revision), revision)
        if (repo, commit) not in self.files:
            return 404, {"X-Error-Code": "RevisionNotFound"}, f"Invalid rev id: {revision}".encode()
        content = self.files[(repo, commit)].get(filename)
        if content is None:
            return 404, {"X-Error-Code": "EntryNotFound"}, f"{filename} does not exist".encode()
        return 200, {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha256(content).hexdigest()}"'}, content

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
