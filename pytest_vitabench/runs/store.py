"""A run directory: manifest, journal of finished items, and content-addressed blobs.

Layout (``<rootdir>/.vitabench/runs/<run-id>/``)::

    manifest.json                  plugin version, config and its hash, suite sha256s, selection, times
    journal/<process>.jsonl        one line per finished item (its summary and blob references)
    blobs/<ab>/<sha256>.json.gz    a trajectory or a memory snapshot, gzip-compressed JSON, stored once

Every process appends to its own journal file, so writers never contend for a lock and a process killed
with ``kill -9`` leaves at most one torn last line, which the reader skips. A line goes to the kernel in one
``write`` on an ``O_APPEND`` descriptor when the item finishes (enough for a killed process); the ``fsync``
is batched by a background thread, which bounds what a power loss can take.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..store.atomic_file import write_atomic
from ..store.lock import read_jsonl

#: Seconds between the batched fsyncs of a journal that has new lines.
FSYNC_INTERVAL_S = 0.5
RUNS_DIR = Path(".vitabench") / "runs"
MANIFEST = "manifest.json"
#: gzip level of blobs: the fastest, for blobs a third larger than the default level's (readers do not care).
BLOB_COMPRESSLEVEL = 1


def new_run_id() -> str:
    """A sortable, unique run id: UTC time, then random hex (``20261130-125959-3f9a1c``)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6]


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


class RunStore:
    """One run directory (created on the first write), shared by threads and processes; ``writer`` names
    this process's journal (``main``, ``gw0``...)."""

    def __init__(self, path: str | os.PathLike[str], writer: str = "main"):
        self.path = Path(path)
        self.writer = writer
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._dirty = False
        self._flusher: threading.Thread | None = None
        self._closed = threading.Event()

    @property
    def run_id(self) -> str:
        """The directory's name; a shard's directory (``<run-id>/shard-I-of-N``) belongs to its parent's run."""
        if re.match(r"^shard-\d+-of-\d+$", self.path.name):
            return self.path.parent.name
        return self.path.name

    def manifest(self) -> dict[str, Any] | None:
        """The manifest, or ``None`` if the run never wrote one (or it is unreadable)."""
        return self.read_json(MANIFEST)

    def read_json(self, name: str) -> dict[str, Any] | None:
        """The JSON object in the file ``name`` of the run directory; ``None`` if it is missing or unreadable."""
        try:
            data = json.loads((self.path / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path / MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False).encode())

    def put_blob(self, value: Any) -> str:
        """Store a JSON value once, named by the sha256 of its canonical JSON; returns that hash."""
        data = canonical_json(value)
        digest = hashlib.sha256(data).hexdigest()
        path = self.blob_path(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, gzip.compress(data, compresslevel=BLOB_COMPRESSLEVEL, mtime=0))
        return digest

    def blob_path(self, digest: str) -> Path:
        return self.path / "blobs" / digest[:2] / f"{digest}.json.gz"

    def get_blob(self, digest: str) -> Any:
        """The stored value; :class:`FileNotFoundError` for a run copied without its ``blobs/``."""
        return json.loads(gzip.decompress(self.blob_path(digest).read_bytes()))

    def append(self, record: dict[str, Any]) -> None:
        """Journal one finished item: one ``write`` of one line, fsynced within :data:`FSYNC_INTERVAL_S`."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        with self._lock:
            if self._fd is None:
                journal = self.path / "journal"
                journal.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(journal / f"{self.writer}.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
                self._flusher = threading.Thread(target=self._flush_loop, name="vita-journal-fsync", daemon=True)
                self._flusher.start()
            os.write(self._fd, line)
            self._dirty = True

    def _flush_loop(self) -> None:
        while not self._closed.wait(FSYNC_INTERVAL_S):
            self.flush()

    def flush(self) -> None:
        with self._lock:
            if self._fd is not None and self._dirty:
                os.fsync(self._fd)
                self._dirty = False

    def close(self) -> None:
        self._closed.set()
        self.flush()
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def records(self) -> Iterator[dict[str, Any]]:
        """Every journaled record of every process, in file order; torn or unreadable lines are skipped."""
        for file in sorted((self.path / "journal").glob("*.jsonl")):
            yield from (record for record in read_jsonl(file) if "nodeid" in record)

    def finished(self) -> dict[str, dict[str, Any]]:
        """The last journaled record of each node id."""
        return {record["nodeid"]: record for record in self.records()}


def runs_root(rootdir: str | os.PathLike[str]) -> Path:
    return Path(rootdir) / RUNS_DIR
