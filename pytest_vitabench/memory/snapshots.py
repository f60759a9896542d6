"""Checkpoints of memory state, so a late subtask selected alone (``-k``, ``--lf``, one node id) gets its
memory without replaying the earlier updates, and never runs a conversation.

After the update for subtask ``i`` the runner saves ``memory.state()`` under a key made of the suite's
sha256, the user, ``i``, the backend, the trial and the backend's ``fingerprint()`` (models, budgets,
prompt version). Selecting subtask ``j`` later restores the newest checkpoint at or before ``j`` and
replays only the updates after it; with every checkpoint present that is one file read. Only backends
with ``state``/``load_state`` are checkpointed (``agentic`` and ``rag``; the deterministic text backends
rebuild in microseconds). The read text is not stored: it follows from the state (and, for ``rag``,
from the embedding cache), so the snapshot a restored memory gives is the one a replayed memory gives.

Checkpoints live in the ``memory`` namespace of the disk store (:mod:`pytest_vitabench.store`), which makes
writes atomic under concurrent xdist workers and an unreadable file a miss.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..store import Namespace, content_key
from .base import is_checkpointable, memory_fingerprint

#: Bump when the stored layout changes, so old checkpoints become misses.
SNAPSHOT_VERSION = 1


def snapshot_key(*, suite_sha256: str, user_id: str, index: int, backend: str, trial: int,
                 settings: Mapping[str, Any]) -> str:
    """The hex sha256 naming the state of ``backend`` for ``user_id`` right after subtask ``index``'s update.

    Args:
        suite_sha256: The suite file's sha256 (a changed suite never reuses checkpoints).
        user_id: The user (its key within the suite).
        index: The 0-based subtask index whose update is included.
        backend: The canonical backend name.
        trial: The trial of the chain (0 for deterministic backends).
        settings: The backend's fingerprint.
    """
    return content_key({"v": SNAPSHOT_VERSION, "suite": suite_sha256, "user": user_id, "index": index,
                        "backend": backend, "trial": trial, "settings": dict(settings)})


class SnapshotStore(Namespace):
    """Memory checkpoints in the ``memory`` namespace of the store rooted at ``root`` (``root/memory``).

    Attributes:
        loads: Checkpoints restored by :meth:`resume` in this process.
        saves: Checkpoints written by :meth:`checkpoint` in this process.
    """

    def __init__(self, root: Path | str):
        super().__init__(Path(root) / "memory", version=SNAPSHOT_VERSION)
        self.loads = 0
        self.saves = 0

    def load(self, key: str) -> dict[str, Any] | None:
        """The stored state, or ``None`` on a miss or an unreadable file."""
        return self.get_dict(key)

    def save(self, key: str, state: Mapping[str, Any], *, meta: Mapping[str, Any] | None = None) -> None:
        """Store ``state`` atomically; a failed write only costs a future rebuild."""
        self.put_json(key, dict(state), meta=meta)

    def get_or_build(self, key: str, build: Callable[[], Mapping[str, Any]]) -> dict[str, Any]:
        """The stored state of ``key``, or ``build()``'s, stored for next time."""
        state = self.load(key)
        if state is None:
            state = dict(build())
            self.save(key, state)
        return state

    def resume(self, memory: object, key_for: Callable[[int], str], *, first: int, last: int) -> int:
        """Restore the newest checkpoint of ``memory`` among subtask indices ``first..last``.

        Args:
            memory: A memory whose updates ``0..first-1`` are already applied.
            key_for: The checkpoint key of a subtask index (see :func:`snapshot_key`).
            first: The next update the memory needs.
            last: The last update it needs.

        Returns:
            The next update still to apply: ``j + 1`` after restoring the checkpoint of ``j``, or
            ``first`` when there is none (or the backend is not checkpointable).
        """
        if not is_checkpointable(memory):
            return first
        for index in range(last, first - 1, -1):
            state = self.load(key_for(index))
            if state is not None:
                memory.load_state(state)  # type: ignore[attr-defined]
                self.loads += 1
                return index + 1
        return first

    def checkpoint(self, memory: object, key: str, **meta: Any) -> None:
        """Save ``memory``'s state under ``key`` (nothing for a backend without ``state``)."""
        if is_checkpointable(memory):
            self.save(key, memory.state(), meta=meta)  # type: ignore[attr-defined]
            self.saves += 1


def advance(memory: object, *, next_index: int, index: int, update: Callable[[int], None],
            store: SnapshotStore | None = None, key_for: Callable[[int], str] | None = None) -> int:
    """Bring ``memory`` to the state right before subtask ``index`` runs (its update included).

    Restores the newest checkpoint in ``next_index..index`` when there is one, then applies the remaining
    updates one by one, saving a checkpoint after each.

    Args:
        memory: The memory; updates ``0..next_index-1`` are already applied.
        next_index: The next update the memory needs.
        index: The subtask about to run.
        update: Applies the update of one subtask index (``memory.update(interactions, context)``).
        store: The checkpoint store; ``None`` replays every update.
        key_for: The checkpoint key of a subtask index (required with ``store``).

    Returns:
        The new ``next_index``: ``index + 1`` (or ``next_index`` if it was already past ``index``).
    """
    if store is not None and key_for is not None and next_index <= index:
        next_index = store.resume(memory, key_for, first=next_index, last=index)
    while next_index <= index:
        update(next_index)
        if store is not None and key_for is not None:
            store.checkpoint(memory, key_for(next_index))
        next_index += 1
    return next_index


def settings_of(memory: object) -> dict[str, Any]:
    """The fingerprint that goes into :func:`snapshot_key` (the backend's ``fingerprint()``)."""
    return memory_fingerprint(memory)
