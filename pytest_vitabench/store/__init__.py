"""Everything pytest-vitabench keeps on disk between runs (:mod:`.disk`), and the lock its processes share
(:mod:`.lock`)."""

from __future__ import annotations

from .disk import (
    DEFAULT_ROOT,
    LEGACY_ROOT,
    NAMESPACES,
    Namespace,
    Store,
    Usage,
    clear_project,
    content_key,
    default_root,
    legacy_notice,
)
from .lock import FileLock

__all__ = ["DEFAULT_ROOT", "LEGACY_ROOT", "NAMESPACES", "FileLock", "Namespace", "Store", "Usage", "clear_project",
           "content_key", "default_root", "legacy_notice"]
