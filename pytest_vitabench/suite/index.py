"""The suite index: each user's text span and the outline collection needs, cached per file sha256.

This is the loader's only cache: collection (and every xdist worker) reads outlines from it, and a user
is parsed and validated from its span when its first item runs (:func:`~.loader.ensure_user`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..store.atomic_file import write_atomic

INDEX_VERSION = 1
_WHITESPACE = " \t\n\r"


def user_spans(text: str) -> list[tuple[int, int, Any]] | None:
    """``(start, end, value)`` of each element of the top-level JSON list, or ``None`` if ``text`` is not a
    JSON list the decoder can read (the caller then parses it whole, for the usual located error message)."""
    from .integrity import span_decoder

    decoder = span_decoder()
    i, n = _skip(text, 0), len(text)
    if i >= n or text[i] != "[":
        return None
    i = _skip(text, i + 1)
    spans: list[tuple[int, int, Any]] = []
    if i < n and text[i] == "]":
        return spans if not text[_skip(text, i + 1):].strip() else None
    while i < n:
        try:
            value, end = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):
            return None
        spans.append((i, end, value))
        i = _skip(text, end)
        if i < n and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < n and text[i] == "]" and not text[i + 1:].strip():
            return spans
        return None
    return None


def _skip(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WHITESPACE:
        i += 1
    return i


def outline_entry(entry: Any) -> dict[str, Any] | None:
    """``{"key", "subtasks": [[id, domain, proactive], ...]}`` of a plain VitaBench 2.0-format user, else ``None``
    (a VitaBench 1.0 task or anything irregular is validated at collection, as before)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
        return None
    subtasks = entry.get("subtasks")
    if not isinstance(subtasks, list) or not subtasks:
        return None
    rows = []
    for sub in subtasks:
        if not isinstance(sub, dict):
            return None
        sid, domain, tested = sub.get("subtask_id"), sub.get("domain"), sub.get("skill_tested") or []
        if not isinstance(sid, str) or not isinstance(domain, str) or not isinstance(tested, list):
            return None
        rows.append([sid, domain, "proactive" in tested])
    return {"key": entry["id"], "subtasks": rows}


def index_path(directory: Path, sha256: str, variant: str = "") -> Path:
    """The cache file of a suite's index; ``variant`` names what else its validation verdicts depend on."""
    return directory / f"{sha256}.v{INDEX_VERSION}{'.' + variant if variant else ''}.json"


def read_index(directory: Path | None, sha256: str, variant: str = "") -> dict[str, Any] | None:
    """A cached index: ``{"users": [row, ...], "language": "en" | "zh" | None}``, or ``None`` if there is none."""
    if directory is None:
        return None
    try:
        data = json.loads(index_path(directory, sha256, variant).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("users"), list):
        return None
    language = data.get("language")
    return {"users": data["users"], "language": language if isinstance(language, str) else None}


def write_index(directory: Path | None, sha256: str, users: list[dict[str, Any]], variant: str = "",
                language: str | None = None) -> None:
    """Save an index atomically (a failure to write only costs the next collection a parse)."""
    if directory is None:
        return
    target = index_path(directory, sha256, variant)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_atomic(target, json.dumps({"version": INDEX_VERSION, "users": users, "language": language})
                     .encode("utf-8"))
    except OSError:
        pass
