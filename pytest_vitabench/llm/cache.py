"""The disk cache of LLM answers, so a repeated or resumed run never pays for the same call twice.

The key is the sha256 of the canonical JSON of everything that decides the answer: the kind of call,
the role, the endpoint, the model, the request body (messages, tools, sampling parameters, ``extra_body``)
and the trial seed. The trial seed is there even when it is not sent to the model (the judge), so
repeated trials never collapse onto one cached sample (promptfoo #360 / #5947). Transport-only settings
(headers, timeouts) are left out. The key is logged at debug level, and every entry records the role,
model and seed it was made for, so a miss can be explained.

One file per key under two levels of shard directories; writes go to a temporary file and are renamed
into place, so concurrent workers and crashes leave either a whole entry or none. An unreadable entry
is a miss. Errors are never cached: only a parsed, successful answer reaches :meth:`DiskCache.put`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("pytest_vitabench.llm")

#: Bump when the stored payload's shape changes, so old entries become misses instead of errors.
CACHE_VERSION = 1
#: Request keys that do not change the answer (and may hold secrets, e.g. an Azure ``api-key`` header).
TRANSPORT_KEYS = frozenset({"extra_headers", "extra_query", "timeout"})


def cache_key(*, kind: str, role: str, endpoint: str, model: str, request: dict[str, Any],
              trial_seed: int | None) -> str:
    """The hex sha256 identifying one call's answer."""
    body = {k: v for k, v in request.items() if k not in TRANSPORT_KEYS}
    material = {"v": CACHE_VERSION, "kind": kind, "role": role, "endpoint": endpoint, "model": model,
                "request": body, "trial_seed": trial_seed}
    canonical = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class DiskCache:
    """Answers stored as JSON files under ``root/ab/cd/<key>.json``."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"DiskCache({str(self.root)!r})"

    def path(self, key: str) -> Path:
        return self.root / key[:2] / key[2:4] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored payload, or ``None`` on a miss or an unreadable entry."""
        path = self.path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable LLM cache entry %s: %s", path, type(exc).__name__)
            return None
        if not isinstance(entry, dict) or entry.get("v") != CACHE_VERSION or not isinstance(entry.get("payload"), dict):
            return None
        return entry["payload"]

    def put(self, key: str, payload: dict[str, Any], *, meta: dict[str, Any] | None = None) -> None:
        """Store ``payload`` atomically; a failure to write only costs a future miss."""
        path = self.path(key)
        entry = {"v": CACHE_VERSION, "key": key, "meta": {**(meta or {}), "created": time.time()}, "payload": payload}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}.", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(entry, fh, ensure_ascii=False)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            log.warning("could not write LLM cache entry %s: %s", path, exc)
