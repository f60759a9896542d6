"""Request-rate and concurrency limits shared by every process of a run (all xdist workers together).

Coordination goes through file locks in one shared directory: no server, and a crashed worker's locks are
dropped by the operating system. The rate is a ring of the last ``rpm`` request times (a request goes when
the oldest is a window old); in flight, holding a lock on one of ``max_concurrency`` slot files. Every
limiter of :mod:`pytest_vitabench.llm` waits through :func:`wait_for`.
"""

from __future__ import annotations

import atexit
import os
import random
import shutil
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..store.lock import FileLock, read_at, write_at

_HEAD = struct.Struct("<Q")
_STAMP = struct.Struct("<d")
#: The growing sleep of a waiter that must poll (nothing announces a slot's release), in seconds.
POLL_S = (0.002, 0.05)


def guard_for(window_s: float) -> float:
    """How much longer than ``window_s`` a stamp is kept: providers count a request a moment after we stamp
    it, and 1% of the window (50 to 250 ms) keeps that transit from showing up as one request too many."""
    return min(max(window_s * 0.01, 0.05), 0.25)


class LimiterTimeout(TimeoutError):
    """No rate or concurrency slot became free within ``max_wait_s``."""


def wait_for(take: Callable[[], float | None], *, max_wait_s: float, refused: str,
             poll_s: tuple[float, float] = POLL_S) -> float:
    """Call ``take`` until it has its slot, sleeping between tries; returns the seconds waited.

    Args:
        take: Takes the slot and returns ``None``, or returns the seconds until one may be free (``0``: not
            known, poll with a sleep growing from ``poll_s[0]`` to ``poll_s[1]``).
        refused: What was not had, for the :class:`LimiterTimeout` after ``max_wait_s``.
    """
    start = time.monotonic()
    poll = poll_s[0]
    while (wait := take()) is not None:
        waited = time.monotonic() - start
        if waited >= max_wait_s or (not wait and waited + poll > max_wait_s):
            raise LimiterTimeout(f"{refused} within {max_wait_s:g} s")
        if wait:
            time.sleep(max(0.001, min(wait, max_wait_s - waited)))
        else:
            time.sleep(poll)
            poll = min(poll * 1.5, poll_s[1])
    return time.monotonic() - start


_private_dir: Path | None = None
_private_lock = threading.Lock()


def private_state_dir() -> Path:
    """A per-process directory for callers without a shared one (limits then hold within the process)."""
    global _private_dir
    with _private_lock:
        if _private_dir is None:
            _private_dir = Path(tempfile.mkdtemp(prefix="vitabench-llm-"))
            atexit.register(shutil.rmtree, _private_dir, True)
        return _private_dir


class Limiter:
    """A cross-process limit on requests per window and on requests in flight.

    Args:
        state_dir: The directory shared by every process that must respect the same limits; ``None``: a
            private one, created only if a limit is set (the limits then hold within this process).
        rpm: Requests allowed per ``window_s``; ``None``: unlimited.
        max_concurrency: Requests in flight at once; ``None``: unlimited.
    """

    def __init__(self, state_dir: Path | str | None, *, rpm: int | None = None, max_concurrency: int | None = None,
                 window_s: float = 60.0, max_wait_s: float = 3600.0, scope: str = "llm"):
        if state_dir is None and (rpm or max_concurrency):
            state_dir = private_state_dir()
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self.rpm = rpm
        self.max_concurrency = max_concurrency
        self.window_s = window_s
        self.max_wait_s = max_wait_s
        self.guard_s = guard_for(window_s)
        root = self.state_dir or Path()
        # The ring's size is the limit, so different limits must not share a file.
        self._ring = root / f"{scope}.rate-{rpm}-per-{window_s:g}s"
        self._slots = [root / f"{scope}.slot-{i}" for i in range(max_concurrency or 0)]
        if self.state_dir is not None and (rpm or max_concurrency):
            self.state_dir.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return (f"Limiter(rpm={self.rpm}, window_s={self.window_s:g}, max_concurrency={self.max_concurrency}, "
                f"state_dir={str(self.state_dir) if self.state_dir else None!r})")

    @contextmanager
    def concurrency_slot(self) -> Iterator[float]:
        """Hold one of ``max_concurrency`` slots for the body; yields the seconds spent waiting."""
        if not self.max_concurrency:
            yield 0.0
            return
        held: list[FileLock] = []
        # Start at a random slot so waiters do not all pile onto slot 0.
        offset = random.randrange(len(self._slots))

        def take() -> float | None:
            for i in range(len(self._slots)):
                slot = FileLock(self._slots[(offset + i) % len(self._slots)])
                if slot.acquire(blocking=False):
                    held.append(slot)
                    return None
            return 0.0

        waited = wait_for(take, max_wait_s=self.max_wait_s,
                          refused=f"no free concurrency slot ({self.max_concurrency})")
        try:
            yield waited
        finally:
            held[0].release()

    def acquire_rate(self) -> float:
        """Take a request slot in the current window; returns the seconds waited."""
        if not self.rpm:
            return 0.0
        rpm = self.rpm
        record_size = _HEAD.size + rpm * _STAMP.size

        def take() -> float | None:
            with FileLock(self._ring) as ring:
                fd = ring.fd
                if os.fstat(fd).st_size < record_size:
                    os.ftruncate(fd, record_size)  # zeros: every slot free since the epoch
                (head,) = _HEAD.unpack(read_at(fd, 0, _HEAD.size))
                offset = _HEAD.size + (head % rpm) * _STAMP.size
                (oldest,) = _STAMP.unpack(read_at(fd, offset, _STAMP.size))
                now = time.time()  # wall clock: the one clock every process on the host shares
                free_at = oldest + self.window_s + self.guard_s
                if now >= free_at:
                    write_at(fd, offset, _STAMP.pack(now))
                    write_at(fd, 0, _HEAD.pack(head + 1))
                    return None
            # Sleep until the oldest request leaves the window (never longer than one window, in case the
            # wall clock jumped); another process may still win the slot, and then we wait again.
            return min(free_at - now, self.window_s)

        return wait_for(take, max_wait_s=self.max_wait_s,
                        refused=f"no request slot ({rpm} per {self.window_s:g} s)")
