"""Everything pytest-vitabench keeps on disk between runs, and the lock its processes share.

- :mod:`.disk`: the one store of cached results (LLM answers, embedding vectors, memory checkpoints,
  suite indexes), content-addressed, in namespaces under ``<rootdir>/.vitabench/cache``.
- :mod:`.lock`: a portable exclusive file lock (rate and concurrency limits across xdist workers).
- :mod:`.commands`: ``vitabench cache info`` and ``vitabench cache clear``.
"""

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
