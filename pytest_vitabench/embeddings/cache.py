"""The on-disk embedding cache: one float32 vector per (model, kind, text), so a second run embeds nothing.

The key is the sha256 of the model id (which names the endpoint for remote models), the kind
(``query`` or ``document``: some models embed the two differently) and the exact text. Vectors are stored
as little-endian float32 bytes, one file per key under a two-level shard directory, written to a
temporary file and renamed into place, so concurrent xdist workers and crashes leave a whole entry or
none. A process also keeps what it read or wrote in memory. Because a vector computed now is stored and
used as the same float32 array that a later run reads back, retrieval is identical with a cold or warm
cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("pytest_vitabench.embeddings")

#: Bump when the stored format changes, so old entries become misses.
CACHE_VERSION = 1


def vector_key(model_id: str, kind: str, text: str) -> str:
    """The hex sha256 naming one vector."""
    material = f"v{CACHE_VERSION}\x00{model_id}\x00{kind}\x00{text}"
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors by key, in memory and (when ``root`` is given) on disk under ``root``.

    Args:
        root: The cache directory; ``None`` keeps vectors in memory only.
    """

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root) if root is not None else None
        self._memory: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.root) if self.root else None!r})"

    def path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / key[2:4] / f"{key}.f32"

    def get(self, key: str) -> np.ndarray | None:
        """The stored vector, or ``None`` on a miss or an unreadable entry."""
        import numpy as np

        with self._lock:
            hit = self._memory.get(key)
        if hit is not None or self.root is None:
            return hit
        try:
            data = self.path(key).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("ignoring unreadable embedding cache entry %s: %s", key, exc)
            return None
        if not data or len(data) % 4:
            return None
        vector = np.frombuffer(data, dtype="<f4").astype(np.float32)
        with self._lock:
            self._memory[key] = vector
        return vector

    def put(self, key: str, vector: np.ndarray) -> None:
        """Store ``vector`` (float32); a failed write only costs a future miss."""
        import numpy as np

        vector = np.ascontiguousarray(vector, dtype=np.float32)
        with self._lock:
            self._memory[key] = vector
        if self.root is None:
            return
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}.", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(vector.astype("<f4").tobytes())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            log.warning("could not write embedding cache entry %s: %s", path, exc)

    def get_many(self, keys: Sequence[str]) -> list[np.ndarray | None]:
        return [self.get(key) for key in keys]
