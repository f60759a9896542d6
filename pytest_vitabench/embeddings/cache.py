"""The embedding cache: one float32 vector per (model, kind, text), so a second run embeds nothing.

Vectors live in the disk store's ``embeddings`` namespace; a vector computed now is used as the same float32
array a later run reads back, so retrieval is identical with a cold or warm cache.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ..store import Namespace

if TYPE_CHECKING:
    import numpy as np

#: Bump when the stored format changes, so old entries become misses.
CACHE_VERSION = 1


def vector_key(model_id: str, kind: str, text: str) -> str:
    """The hex sha256 naming one vector."""
    material = f"v{CACHE_VERSION}\x00{model_id}\x00{kind}\x00{text}"
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors by key, in memory and (when ``root`` is given) in the store rooted at ``root``.

    Args:
        root: The store's root (vectors go to ``root/embeddings``); ``None`` keeps vectors in memory only.
    """

    def __init__(self, root: Path | str | None = None):
        self.namespace = Namespace(Path(root) / "embeddings", suffix=".f32") if root is not None else None
        self._memory: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.namespace.directory) if self.namespace else None!r})"

    def path(self, key: str) -> Path:
        assert self.namespace is not None
        return self.namespace.path(key)

    def get(self, key: str) -> np.ndarray | None:
        """The stored vector, or ``None`` on a miss or an unreadable entry."""
        import numpy as np

        with self._lock:
            hit = self._memory.get(key)
        if hit is not None or self.namespace is None:
            return hit
        data = self.namespace.read(key)
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
        if self.namespace is not None:
            self.namespace.write(key, vector.astype("<f4").tobytes())
