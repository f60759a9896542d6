"""How a run and an estimate tune the garbage collector.

``gc.freeze`` moves the objects alive at a moment to the permanent generation: still freed by reference
counting, never walked by a cyclic collection again. Without it, each collection walks every parsed user,
prompt and environment alive: on the paper suite a third of an estimate's CPU went to collections.
"""

from __future__ import annotations

import gc
import threading

from ..suite.loader import LoadedSuite, LoadedUser, ensure_user

GEN0_THRESHOLD = 10_000


def freeze_long_lived() -> None:
    """Exempt every object alive now from later collections (call when the run or estimate starts).

    Without a collection first: one walks every object imports and collection made (0.04-0.1 s of CPU, the
    one of the larger costs between collection and the first request), to free cycles that are few and small; the
    peak memory of a run is the same without it."""
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *gc.get_threshold()[1:])


class FrozenValidation:
    """Validates users with the collector paused and freezes what they built (a user's models live while its
    items run, and collections walking them are most of a validated user's collector cost). Released users
    are still freed by reference counting; only a cycle among them would stay until the process ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0

    def __call__(self, suite: LoadedSuite, user: LoadedUser) -> None:
        with self._lock:
            self._running += 1
            gc.disable()
        try:
            ensure_user(suite, user)
        finally:
            with self._lock:
                self._running -= 1
                if not self._running:
                    gc.freeze()
                    gc.enable()
