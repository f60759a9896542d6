"""Checkpoints of memory state, so a late subtask selected alone (``-k``, ``--lf``, one node id) gets its
memory without replaying the earlier updates, and never runs a conversation.

A checkpoint is a backend's ``state()`` right after subtask ``i``'s update, keyed by the suite's sha256,
the user, ``i``, the backend, the trial and the backend's ``fingerprint()``. Only the read text's inputs are
stored, never the text: a restored memory reads exactly as a replayed one. The ``memory`` namespace of the
disk store (:mod:`pytest_vitabench.store`) makes writes atomic under concurrent xdist workers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..store import Namespace, content_key
from .base import is_checkpointable

#: Bump when the stored layout changes, so old checkpoints become misses.
SNAPSHOT_VERSION = 1


def snapshot_key(*, suite_sha256: str, user_id: str, index: int, backend: str, trial: int,
                 settings: Mapping[str, Any]) -> str:
    """The hex sha256 naming the state of ``backend`` for ``user_id`` right after subtask ``index``'s update.

    Args:
        suite_sha256: The suite file's sha256 (a changed suite never reuses checkpoints).
        index: The 0-based subtask index whose update is included.
        trial: The trial of the chain (0 for deterministic backends).
        settings: The backend's fingerprint (:func:`settings_of`).
    """
    return content_key({"v": SNAPSHOT_VERSION, "suite": suite_sha256, "user": user_id, "index": index,
                        "backend": backend, "trial": trial, "settings": dict(settings)})


def settings_of(memory: object) -> dict[str, Any]:
    """The settings the backend's state depends on (its ``fingerprint()``), or ``{}``."""
    provider = getattr(memory, "fingerprint", None)
    return dict(provider()) if callable(provider) else {}


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

    def resume(self, memory: object, key_for: Callable[[int], str], *, first: int, last: int) -> int:
        """Restore the newest checkpoint of ``memory`` among subtask indices ``first..last``.

        Returns:
            The next update still to apply: ``j + 1`` after restoring the checkpoint of ``j``, or
            ``first`` when there is none (or the backend is not checkpointable).
        """
        if not is_checkpointable(memory):
            return first
        for index in range(last, first - 1, -1):
            state = self.get_dict(key_for(index))  # None on a miss or an unreadable file
            if state is not None:
                memory.load_state(state)  # type: ignore[attr-defined]
                self.loads += 1
                return index + 1
        return first

    def checkpoint(self, memory: object, key: str) -> None:
        """Save ``memory``'s state under ``key`` (nothing for a backend without ``state``); a failed write
        only costs a future rebuild."""
        if is_checkpointable(memory):
            self.put_json(key, dict(memory.state()))  # type: ignore[attr-defined]
            self.saves += 1


def advance(memory: object, *, next_index: int, index: int, update: Callable[[int], None],
            store: SnapshotStore | None, key_for: Callable[[int], str]) -> int:
    """Bring ``memory`` to the state right before subtask ``index`` runs (its update included): restore the
    newest checkpoint in ``next_index..index`` when there is one, then apply the remaining updates one by one,
    saving a checkpoint after each.

    Args:
        memory: The memory; updates ``0..next_index-1`` are already applied.
        update: Applies the update of one subtask index (``memory.update(interactions, context)``).
        store: The checkpoint store; ``None`` replays every update.
        key_for: The checkpoint key of a subtask index (see :func:`snapshot_key`).

    Returns:
        The new ``next_index``: ``index + 1`` (or ``next_index`` if it was already past ``index``).
    """
    if store is not None and next_index <= index:
        next_index = store.resume(memory, key_for, first=next_index, last=index)
    while next_index <= index:
        update(next_index)
        if store is not None:
            store.checkpoint(memory, key_for(next_index))
        next_index += 1
    return next_index
