"""Request-rate and concurrency limits shared by every process of a run (all xdist workers together), or by
every process that names the same Redis server (``--vita-limits url``), on any machine.

One :class:`Limiter` over a small storage protocol: a store takes and releases an in-flight slot
(``take_slot``, ``release_slot``) and takes a request-rate slot (``take_rate``). :class:`FileSlots`, the
default, coordinates through file locks in one shared directory: no server, and a crashed worker's locks
are dropped by the operating system. The rate is a ring of the last ``rpm`` request times (a request goes
when the oldest is a window old); in flight, holding a lock on one of ``max_concurrency`` slot files.
:class:`RedisSlots` keeps each budget in a sorted set changed by one Lua script (atomic on the server, so
no two clients take the last slot) and timed by the server's clock (the machines' clocks need not agree);
a slot holder has a lease of the request timeout plus a margin, so a process killed while holding a slot
gives it back when it ends. Every limiter of :mod:`pytest_vitabench.llm` waits through :func:`wait_for`.
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
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..store.lock import FileLock, read_at, write_at
from .secrets import redact_url, register_secret

_HEAD = struct.Struct("<Q")
_STAMP = struct.Struct("<d")
#: The growing sleep of a waiter that must poll (nothing announces a slot's release), in seconds.
POLL_S = (0.002, 0.05)
#: Then the scope, the kind and the limit itself, so different limits never share a Redis key.
KEY_PREFIX = "vitabench:limits"
#: Seconds a Redis slot holder keeps its lease beyond the request timeout.
LEASE_MARGIN_S = 30.0


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


class FileSlots:
    """The budgets of a :class:`Limiter` in locked files of one directory shared by every process."""

    poll_s = POLL_S
    shared = ""

    def __init__(self, state_dir: Path | str | None, *, rpm: int | None, max_concurrency: int | None,
                 window_s: float, scope: str = "llm"):
        if state_dir is None and (rpm or max_concurrency):
            state_dir = private_state_dir()
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self.rpm = rpm
        self.window_s = window_s
        self.guard_s = guard_for(window_s)
        root = self.state_dir or Path()
        # The ring's size is the limit, so different limits must not share a file.
        self._ring = root / f"{scope}.rate-{rpm}-per-{window_s:g}s"
        self._slots = [root / f"{scope}.slot-{i}" for i in range(max_concurrency or 0)]
        if self.state_dir is not None and (rpm or max_concurrency):
            self.state_dir.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return f"FileSlots({str(self.state_dir) if self.state_dir else None!r})"

    def take_slot(self) -> FileLock | None:
        # Start at a random slot so waiters do not all pile onto slot 0.
        offset = random.randrange(len(self._slots))
        for i in range(len(self._slots)):
            slot = FileLock(self._slots[(offset + i) % len(self._slots)])
            if slot.acquire(blocking=False):
                return slot
        return None

    def release_slot(self, handle: FileLock) -> None:
        handle.release()

    def take_rate(self) -> float | None:
        assert self.rpm  # the limiter asks only with a rate limit set
        record_size = _HEAD.size + self.rpm * _STAMP.size
        with FileLock(self._ring) as ring:
            fd = ring.fd
            if os.fstat(fd).st_size < record_size:
                os.ftruncate(fd, record_size)  # zeros: every slot free since the epoch
            (head,) = _HEAD.unpack(read_at(fd, 0, _HEAD.size))
            offset = _HEAD.size + (head % self.rpm) * _STAMP.size
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


#: The growing sleep of a waiter for a Redis in-flight slot (each try is a round trip to the server).
_REDIS_POLL_S = (0.01, 0.5)

# KEYS[1] = a budget's members (request stamps in the window, or in-flight slot holders); ARGV = how long a
# member counts (the window, or the lease), the limit, a new member. Returns '0' (the member is in) or the
# seconds until the oldest member stops counting.
_TAKE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
local span = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t - span)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], t, ARGV[3])
  redis.call('EXPIRE', KEYS[1], math.ceil(span) + 1)
  return '0'
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tostring(tonumber(oldest[2]) + span - t)
"""


class RedisSlots:
    """The budgets of a :class:`Limiter` in Redis, shared by every process that names the server.

    Args:
        url: ``redis://[:password@]host:port/db`` (or ``rediss://``, ``unix://``).
        lease_s: How long a slot holder keeps its slot at most (a killed holder's slot comes back then).

    Raises:
        ValueError: The ``redis`` package is not installed, or the server cannot be reached.
    """

    poll_s = _REDIS_POLL_S
    shared = ", shared through Redis"

    def __init__(self, url: str, *, rpm: int | None, max_concurrency: int | None, window_s: float,
                 lease_s: float = 150.0, scope: str = "llm"):
        try:
            import redis
        except ImportError:
            raise ValueError("--vita-limits url needs the redis package: pip install 'pytest-vitabench[redis]'") \
                from None
        self.rpm = rpm
        self.max_concurrency = max_concurrency
        self.window_s = window_s
        self.lease_s = lease_s
        self.shown_url = redact_url(url)
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        try:
            self._redis: Any = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=10)
            register_secret(self._redis.connection_pool.connection_kwargs.get("password"))
            self._redis.ping()  # an unreachable server is a usage error before any item, not an error per item
        except (*self._errors, ValueError) as exc:
            raise ValueError(f"--vita-limits url {self.shown_url}: cannot reach the Redis server: "
                             f"{type(exc).__name__}: {exc}") from None
        self._rate_key = f"{KEY_PREFIX}:{scope}:rate:{rpm}:{window_s:g}"
        self._slot_key = f"{KEY_PREFIX}:{scope}:inflight:{max_concurrency}"
        self._take = self._redis.register_script(_TAKE)

    def __repr__(self) -> str:
        return f"RedisSlots({self.shown_url!r})"

    def _join(self, key: str, span_s: float, limit: int | None) -> tuple[str, float]:
        """A new member of the budget at ``key`` and the seconds it must wait (``0``: it is in). A lost
        server is a limiter failure (the call is not sent, the item errors)."""
        member = uuid.uuid4().hex
        try:
            return member, float(self._take(keys=[key], args=[span_s, str(limit), member]))
        except self._errors as exc:
            raise LimiterTimeout(f"the limits server {self.shown_url} failed: {type(exc).__name__}: {exc}") from None

    def take_slot(self) -> str | None:
        member, wait = self._join(self._slot_key, self.lease_s, self.max_concurrency)
        return None if wait > 0 else member

    def release_slot(self, handle: str) -> None:
        try:
            self._redis.zrem(self._slot_key, handle)
        except self._errors:  # the lease gives the slot back
            pass

    def take_rate(self) -> float | None:
        _, wait = self._join(self._rate_key, self.window_s, self.rpm)
        return None if wait <= 0 else min(wait, self.window_s)


class Limiter:
    """A cross-process limit on requests per window and on requests in flight.

    Args:
        state_dir: The directory shared by every process that must respect the same limits; ``None``: a
            private one, created only if a limit is set (the limits then hold within this process).
        rpm: Requests allowed per ``window_s``; ``None``: unlimited.
        max_concurrency: Requests in flight at once; ``None``: unlimited.
        store: Where the budgets live instead of ``state_dir`` (:class:`RedisSlots`).
    """

    def __init__(self, state_dir: Path | str | None, *, rpm: int | None = None, max_concurrency: int | None = None,
                 window_s: float = 60.0, max_wait_s: float = 3600.0, scope: str = "llm",
                 store: RedisSlots | None = None):
        self.rpm = rpm
        self.max_concurrency = max_concurrency
        self.window_s = window_s
        self.max_wait_s = max_wait_s
        self.store: FileSlots | RedisSlots = store if store is not None else FileSlots(
            state_dir, rpm=rpm, max_concurrency=max_concurrency, window_s=window_s, scope=scope)

    def __repr__(self) -> str:
        return (f"Limiter(rpm={self.rpm}, window_s={self.window_s:g}, max_concurrency={self.max_concurrency}, "
                f"store={self.store!r})")

    @contextmanager
    def concurrency_slot(self) -> Iterator[float]:
        """Hold one of ``max_concurrency`` slots for the body; yields the seconds spent waiting."""
        if not self.max_concurrency:
            yield 0.0
            return
        held: list[Any] = []

        def take() -> float | None:
            handle = self.store.take_slot()
            if handle is None:
                return 0.0
            held.append(handle)
            return None

        waited = wait_for(take, max_wait_s=self.max_wait_s, poll_s=self.store.poll_s,
                          refused=f"no free concurrency slot ({self.max_concurrency}{self.store.shared})")
        try:
            yield waited
        finally:
            self.store.release_slot(held[0])

    def acquire_rate(self) -> float:
        """Take a request slot in the current window; returns the seconds waited."""
        if not self.rpm:
            return 0.0
        return wait_for(self.store.take_rate, max_wait_s=self.max_wait_s,
                        refused=f"no request slot ({self.rpm} per {self.window_s:g} s{self.store.shared})")
