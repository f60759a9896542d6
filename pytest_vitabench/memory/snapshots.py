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
    """The hex sha256 naming the state of ``backend`` for ``user_id`` right after subtask ``index``'s (0-based)
    update, in ``trial``'s chain (0 for deterministic backends), with ``settings`` (:func:`settings_of`); a
    changed suite file (``suite_sha256``) never reuses checkpoints."""
    return content_key({"v": SNAPSHOT_VERSION, "suite": suite_sha256, "user": user_id, "index": index,
                        "backend": backend, "trial": trial, "settings": dict(settings)})


def settings_of(memory: object) -> dict[str, Any]:
    """The settings the backend's state depends on (its ``fingerprint()``), or ``{}``."""
    provider = getattr(memory, "fingerprint", None)
    return dict(provider()) if callable(provider) else {}


class SnapshotStore(Namespace):
    """Memory checkpoints in ``root/memory``; ``loads`` and ``saves`` count this process's (:func:`advance`)."""

    def __init__(self, root: Path | str):
        super().__init__(Path(root) / "memory", version=SNAPSHOT_VERSION)
        self.loads = 0
        self.saves = 0


def advance(memory: object, *, next_index: int, index: int, update: Callable[[int], None],
            store: SnapshotStore | None, key_for: Callable[[int], str]) -> int:
    """Bring ``memory``, whose updates ``0..next_index-1`` are applied, to the state right before subtask
    ``index`` runs: restore the newest checkpoint in ``next_index..index`` (``store``: ``None`` replays every
    update), then ``update`` each remaining index, saving a checkpoint after each.

    Returns:
        The new ``next_index``: ``index + 1`` (or ``next_index`` if it was already past ``index``).
    """
    checkpoints = store if is_checkpointable(memory) else None
    if checkpoints is not None:
        for newest in range(index, next_index - 1, -1):
            state = checkpoints.get_dict(key_for(newest))  # None on a miss or an unreadable file
            if state is not None:
                memory.load_state(state)  # type: ignore[attr-defined]
                checkpoints.loads += 1
                next_index = newest + 1
                break
    while next_index <= index:
        update(next_index)
        if checkpoints is not None:
            # A failed write only costs a future rebuild.
            checkpoints.put_json(key_for(next_index), dict(memory.state()))  # type: ignore[attr-defined]
            checkpoints.saves += 1
        next_index += 1
    return next_index
