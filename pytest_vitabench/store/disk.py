"""The one disk store: content-addressed entries in namespaces under one root, safe for concurrent writers.

Layout: ``<root>/<namespace>/<k[:2]>/<k[2:4]>/<k><suffix>``, one file per key ``k``, written atomically, so
readers never lock. A missing, truncated, unparsable or foreign entry is a miss, never an error, and a failed
write only costs a later miss.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .atomic_file import write_atomic

log = logging.getLogger("pytest_vitabench.store")

#: The store's root relative to pytest's rootdir (beside the run journals in ``.vitabench/runs``).
DEFAULT_ROOT = Path(".vitabench") / "cache"
#: Where releases before the one store kept the LLM cache (with ``embeddings/`` and ``memory/`` inside).
#: It is no longer read; ``vitabench cache clear`` and ``pytest --cache-clear`` remove it.
LEGACY_ROOT = Path(".vitabench_cache")
#: Every namespace and what it holds, keyed by what (``vitabench cache info`` prints this).
NAMESPACES = {
    "llm": "LLM answers; key: call kind, role, endpoint, model, request body, trial seed",
    "embeddings": "embedding vectors (float32); key: model, query/document, text",
    "memory": "memory checkpoints; key: suite sha256, user, subtask, backend, trial, backend settings",
    "suites": "suite outlines and validation verdicts; key: suite file sha256 (+ checks)",
}
_TRASH_PREFIX = ".trash-"


def default_root(rootdir: Path | str) -> Path:
    """The store's root for a project whose pytest rootdir is ``rootdir``."""
    return Path(rootdir) / DEFAULT_ROOT


def content_key(material: Mapping[str, Any]) -> str:
    """The hex sha256 of ``material``'s canonical JSON (sorted keys, no spaces): equal inputs, equal keys,
    on every run, process and Python version."""
    canonical = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Usage:
    """What one namespace directory holds."""

    name: str
    entries: int
    size_bytes: int


class Namespace:
    """One kind of entry under ``<store root>/<name>``; a JSON entry of another ``version`` is a miss."""

    def __init__(self, directory: Path | str, *, version: int = 1, suffix: str = ".json"):
        self.directory = Path(directory)
        self.version = version
        self.suffix = suffix

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / key[2:4] / f"{key}{self.suffix}"

    def read(self, key: str) -> bytes | None:
        """The entry's bytes, or ``None`` when it is absent or unreadable."""
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("ignoring unreadable cache entry %s: %s", self.path(key), type(exc).__name__)
            return None

    def write(self, key: str, data: bytes) -> bool:
        """Store ``data`` under ``key`` atomically; ``False`` (and a warning) when it could not be written."""
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data)
        except OSError as exc:
            log.warning("could not write cache entry %s: %s", path, exc)
            return False
        return True

    def get_json(self, key: str) -> Any:
        """The value stored by :meth:`put_json`, or ``None`` on a miss, a corrupt entry or another version."""
        data = self.read(key)
        if data is None:
            return None
        try:
            entry = json.loads(data)
        except ValueError:
            log.warning("ignoring corrupt cache entry %s", self.path(key))
            return None
        if not isinstance(entry, dict) or entry.get("v") != self.version or entry.get("key") != key:
            return None
        return entry.get("value")

    def get_dict(self, key: str) -> dict[str, Any] | None:
        """:meth:`get_json` when the stored value is an object, else ``None``."""
        value = self.get_json(key)
        return value if isinstance(value, dict) else None

    def put_json(self, key: str, value: Any, *, meta: Mapping[str, Any] | None = None) -> bool:
        """Store ``value`` (JSON-serializable) with ``meta`` saying what it was made for (kept for debugging)."""
        entry = {"v": self.version, "key": key, "meta": {**(meta or {}), "created": time.time()}, "value": value}
        try:
            data = json.dumps(entry, ensure_ascii=False).encode()
        except (TypeError, ValueError) as exc:
            log.warning("could not write cache entry %s: %s", self.path(key), exc)
            return False
        return self.write(key, data)

    def usage(self) -> Usage:
        entries = size = 0
        for parent, _, names in os.walk(self.directory):
            for name in names:
                if not name.startswith("."):
                    entries += 1
                    size += (Path(parent) / name).stat().st_size
        return Usage(self.directory.name, entries, size)

    def clear(self) -> int:
        """Delete every entry; returns how many there were."""
        count = self.usage().entries
        _remove_tree(self.directory)
        return count


class Store:
    """The disk store: one root (conventionally :func:`default_root`), one :class:`Namespace` per kind."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def namespace(self, name: str, *, version: int = 1, suffix: str = ".json") -> Namespace:
        return Namespace(self.root / name, version=version, suffix=suffix)

    def namespaces(self) -> list[Namespace]:
        """The namespaces present on disk (known ones first), whatever their version."""
        present = {p.name for p in _subdirectories(self.root)}
        names = [n for n in NAMESPACES if n in present] + sorted(present - set(NAMESPACES))
        return [self.namespace(name) for name in names]

    def usage(self) -> list[Usage]:
        return [namespace.usage() for namespace in self.namespaces()]

    def clear(self, names: Iterable[str] | None = None) -> dict[str, int]:
        """Delete the entries of ``names`` (default: every namespace); returns the count removed per name."""
        wanted = None if names is None else set(names)
        removed = {ns.directory.name: ns.clear() for ns in self.namespaces()
                   if wanted is None or ns.directory.name in wanted}
        for leftover in self.root.glob(_TRASH_PREFIX + "*"):  # an earlier clear interrupted mid-delete
            shutil.rmtree(leftover, ignore_errors=True)
        return removed


def _subdirectories(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        return []


def _remove_tree(directory: Path) -> None:
    """Rename ``directory`` aside, then delete it: a writer racing the clear recreates a fresh directory
    instead of failing inside one that is being deleted."""
    trash = directory.with_name(f"{_TRASH_PREFIX}{directory.name}-{uuid.uuid4().hex[:8]}")
    try:
        os.replace(directory, trash)
    except FileNotFoundError:
        return
    except OSError:  # e.g. Windows refuses to rename a directory with an open file inside
        trash = directory
    shutil.rmtree(trash, ignore_errors=True)


def clear_project(rootdir: Path | str, root: Path | str | None = None) -> tuple[dict[str, int], bool]:
    """Empty a project's store (``pytest --cache-clear``, ``vitabench cache clear``); the entries removed per
    namespace, and whether a legacy ``.vitabench_cache`` was removed. The run journals are kept: they are
    results, not a cache."""
    removed = Store(root if root is not None else default_root(rootdir)).clear()
    legacy = Path(rootdir) / LEGACY_ROOT
    had_legacy = legacy.is_dir()
    if had_legacy:
        _remove_tree(legacy)
    return removed, had_legacy


def legacy_notice(rootdir: Path | str) -> str | None:
    """One line telling how to remove a legacy ``.vitabench_cache`` under ``rootdir``, or ``None``."""
    if not (Path(rootdir) / LEGACY_ROOT).is_dir():
        return None
    return (f"pytest-vitabench: {LEGACY_ROOT}/ is no longer read (the cache moved to {DEFAULT_ROOT.as_posix()}/); "
            f"remove it with `vitabench cache clear` or `pytest --cache-clear`")
