"""Bounded memos of what the built-in agents derive from a conversation.

The built-in agents keep no state: on every turn they read the whole conversation again and derive the
request's facts, the catalogue of options and their ranking afresh. Most of that is the same as on the turn
before, and every trial of a subtask replays the same conversation. A :class:`Memo` remembers the last few
derivations, keyed by exactly the inputs a derivation reads, so a repeat costs one dictionary look-up and
the answer is the one a fresh derivation would give.

Values are shared between callers (and threads, when a run has several episodes in flight): treat them as
read-only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")

_MISSING = object()
#: Every memo made, so that :func:`clear_memos` can forget them all.
_ALL: list[Memo[Hashable, object]] = []


class Memo(Generic[Key, Value]):
    """The values of the ``size`` keys asked for most recently; the least recently used is dropped first.

    Args:
        size: How many values to keep; keep it to what one run interleaves (the items in flight and the
            trials of a subtask), since values may hold parsed tool results.
    """

    def __init__(self, size: int):
        self.size = size
        self._values: OrderedDict[Key, Value] = OrderedDict()
        self._lock = threading.Lock()
        _ALL.append(self)  # type: ignore[arg-type]

    def get(self, key: Key, derive: Callable[[], Value]) -> Value:
        """The value remembered for ``key``, else ``derive()`` remembered.

        ``derive`` runs outside the lock: two threads may derive the same value at once, and either copy
        serves (derivations are deterministic).
        """
        with self._lock:
            found = self._values.get(key, _MISSING)
            if found is not _MISSING:
                self._values.move_to_end(key)
                return found  # type: ignore[return-value]
        value = derive()
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()


def clear_memos() -> None:
    """Forget every built-in agent derivation (for tests and benchmarks that measure a cold start)."""
    for memo in _ALL:
        memo.clear()
