"""Chat requests through an OpenAI-compatible Batch API (upload a JSONL file, create a batch, poll, download),
journaled so that a crash between submission and download resumes without submitting again.

The journal is a folder with two append-only JSONL files per writing process: ``batches-<writer>.jsonl``
(a line per batch the moment it is created, a later one when it is downloaded) and ``answers-<writer>.jsonl``
(a line per answered request). Requests are keyed by the disk cache's key, so a resumed run finds its
answers and polls the batches already submitted rather than sending them again.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.lock import read_at, read_jsonl
from .endpoints import request_body
from .errors import LLMError
from .responses import BadResponse, chat_payload
from .secrets import scrub_payload

if TYPE_CHECKING:
    from .client import LLMClient

#: Batch states after which nothing more will come.
FINAL_STATES = frozenset({"completed", "failed", "expired", "cancelled"})
#: The chat endpoint every request line names.
CHAT_URL = "/v1/chat/completions"


class BatchUnsupported(LLMError):
    """The endpoint has no Batch API (it answered 404 / 405 on the files or batches endpoint)."""


class BatchJournal:
    """The journal of one run's batches in ``folder``; this process appends to its ``writer``'s files only."""

    def __init__(self, folder: Path | str, writer: str = "main"):
        self.folder = Path(folder)
        self.writer = writer

    @property
    def batches_file(self) -> Path:
        return self.folder / f"batches-{self.writer}.jsonl"

    def submitted(self) -> dict[str, dict[str, Any]]:
        """Every batch submitted so far by any writer, by id: ``keys``, ``input_file_id``, and ``downloaded``."""
        out: dict[str, dict[str, Any]] = {}
        for line in self._lines("batches"):
            batch_id = line.get("batch_id")
            if not isinstance(batch_id, str):
                continue
            entry = out.setdefault(batch_id, {"keys": [], "downloaded": False})
            if "keys" in line:
                entry.update(keys=list(line["keys"]), input_file_id=line.get("input_file_id"))
            if line.get("downloaded"):
                entry["downloaded"] = True
        return out

    def answers(self) -> dict[str, dict[str, Any]]:
        """Every answer so far by request key: ``{"payload": ..., "batch_id": ...}`` or ``{"error": ...}``."""
        return {line["key"]: line for line in self._lines("answers") if isinstance(line.get("key"), str)}

    def _lines(self, kind: str) -> list[dict[str, Any]]:
        return [line for path in sorted(self.folder.glob(f"{kind}-*.jsonl")) for line in read_jsonl(path)]

    def record_submission(self, batch_id: str, input_file_id: str, keys: list[str]) -> None:
        self._append(self.batches_file, [{"batch_id": batch_id, "input_file_id": input_file_id, "keys": keys,
                                          "submitted": time.time()}])

    def record_answers(self, batch_id: str, answers: Mapping[str, dict[str, Any]]) -> None:
        """The answers of a downloaded batch, then the mark that it is downloaded (in that order: a crash
        in between downloads it again, never loses an answer)."""
        self._append(self.folder / f"answers-{self.writer}.jsonl", [{"key": key, "batch_id": batch_id, **value}
                                         for key, value in answers.items()])
        self._append(self.batches_file, [{"batch_id": batch_id, "downloaded": True}])

    def _append(self, path: Path, lines: list[dict[str, Any]]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)
        # One write on an O_APPEND descriptor and an fsync: batches are few and each one is worth hours.
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size and read_at(fd, size - 1, 1) != b"\n":
                data = "\n" + data  # after a torn last line (a killed process): start a line of our own
            os.write(fd, data.encode())
            os.fsync(fd)
        finally:
            os.close(fd)


class BatchSubmitter:
    """Sends requests as batches through ``client``'s endpoint and key, and waits for their answers.

    Args:
        max_wait_s: The longest wait for one batch (it stays journaled: a later run resumes it).
        on_wait: Called after each status check with the batch id and its status (progress lines).
    """

    def __init__(self, client: LLMClient, journal: BatchJournal, *, poll_s: float = 30.0,
                 max_wait_s: float = 26 * 3600.0, on_wait: Callable[[str, str], None] | None = None):
        self.client = client
        self.journal = journal
        self.poll_s = poll_s
        self.max_wait_s = max_wait_s
        self.on_wait = on_wait

    def submit(self, requests: Mapping[str, dict[str, Any]]) -> str:
        """Upload ``requests`` (key -> chat request) as one batch; returns its id, journaled before returning.

        Raises:
            BatchUnsupported: The endpoint has no Batch API.
            LLMError: The upload or the creation failed otherwise.
        """
        lines = [{"custom_id": key, "method": "POST", "url": CHAT_URL, "body": request_body(request)}
                 for key, request in requests.items()]
        data = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines).encode()
        api = self.client.api()
        uploaded = self._api("upload the batch input file (POST /files)",
                             lambda: api.files.create(file=("vitabench-judge-batch.jsonl", data), purpose="batch"))
        batch = self._api("create the batch (POST /batches)", lambda: api.batches.create(
            input_file_id=uploaded.id, endpoint=CHAT_URL, completion_window="24h"))
        self.journal.record_submission(batch.id, uploaded.id, list(requests))
        return str(batch.id)

    def wait(self, batch_id: str, keys: list[str]) -> dict[str, dict[str, Any]]:
        """Poll ``batch_id`` until it is final, download and journal its answers; returns one per key of
        ``keys`` (the batch's requests): an ``error`` for a request the batch left unanswered.

        Raises:
            LLMError: The batch failed, expired or was cancelled as a whole, or did not finish in time.
        """
        api = self.client.api()
        start = time.monotonic()
        while True:
            batch = self._api(f"check batch {batch_id} (GET /batches/{batch_id})",
                              lambda: api.batches.retrieve(batch_id))
            status = str(batch.status)
            if self.on_wait is not None:
                self.on_wait(batch_id, status)
            if status in FINAL_STATES:
                break
            if time.monotonic() - start + self.poll_s > self.max_wait_s:
                raise self._failure(f"batch {batch_id} is still {status} after {self.max_wait_s:g} s; it stays "
                                    "journaled, and the next run with --vita-judge-args batch resumes it")
            time.sleep(self.poll_s)
        answers: dict[str, dict[str, Any]] = {}
        for file_id in (getattr(batch, "output_file_id", None), getattr(batch, "error_file_id", None)):
            if file_id:
                answers.update(parse_output(self._download(api, str(file_id))))
        if not answers and status != "completed":
            raise self._failure(f"batch {batch_id} ended {status} without answers"
                                + _batch_errors(batch))
        for key in keys:
            answers.setdefault(key, {"error": f"batch {batch_id} ({status}) returned no answer to this request"})
        answers = {key: {**value, "batch_id": batch_id} for key, value in answers.items()}
        self.journal.record_answers(batch_id, answers)
        return answers

    def _download(self, api: Any, file_id: str) -> str:
        return str(self._api(f"download {file_id} (GET /files/{file_id}/content)",
                             lambda: api.files.content(file_id).text))

    def _api(self, what: str, call: Callable[[], Any]) -> Any:
        import openai

        try:
            return call()
        except openai.APIStatusError as exc:
            detail = self.client.redact(str(exc.message))
            if exc.status_code in (404, 405):
                raise BatchUnsupported(
                    f"the endpoint {self.client.endpoint} has no Batch API: could not {what}, HTTP "
                    f"{exc.status_code} ({detail}). Judge without --vita-judge-args batch, or point --vita-base-url at "
                    "an endpoint that serves /files and /batches", role="judge", model="", host=self.client.host,
                    status=exc.status_code, reason="http", attempts=1, retryable=False) from None
            raise self._failure(f"could not {what}: HTTP {exc.status_code}: {detail}", status=exc.status_code) from None
        except openai.APIConnectionError as exc:
            raise self._failure(f"could not {what}: connection failed ({type(exc).__name__})", reason="connection") \
                from None

    def _failure(self, message: str, *, status: int | None = None, reason: str = "batch") -> LLMError:
        return LLMError(f"judge batch at {self.client.host}: {message}", role="judge", model="", host=self.client.host,
                        status=status, reason=reason, attempts=1, retryable=False)


def parse_output(text: str) -> dict[str, dict[str, Any]]:
    """A batch's output (or error) JSONL as ``{key: {"payload": completion JSON} | {"error": text}}``."""
    out: dict[str, dict[str, Any]] = {}
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue
        key = line.get("custom_id") if isinstance(line, dict) else None
        if not isinstance(key, str):
            continue
        response = line.get("response") or {}
        body = response.get("body") if isinstance(response, dict) else None
        status = response.get("status_code") if isinstance(response, dict) else None
        if status == 200 and isinstance(body, dict):
            try:
                out[key] = {"payload": scrub_payload(chat_payload(body))}
                continue
            except BadResponse as exc:
                out[key] = {"error": str(exc)}
                continue
        error = line.get("error") or (body.get("error") if isinstance(body, dict) else None) or body
        message = error.get("message") if isinstance(error, dict) else error
        out[key] = {"error": f"HTTP {status}: {message}" if status else str(message)}
    return out


def _batch_errors(batch: Any) -> str:
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    messages = [str(getattr(e, "message", e)) for e in errors][:3]
    return f" ({'; '.join(messages)})" if messages else ""
