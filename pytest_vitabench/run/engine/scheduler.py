"""Run items ahead of pytest's item loop, up to N episodes in flight, on one asyncio loop.

pytest runs items one at a time and each must produce its own report. To overlap their LLM latency anyway,
an event loop in a background thread runs the coroutines of the upcoming items (the caller says which) in
the order this process will need them; an item's fixture only waits for its future. ``should_stop`` is
consulted before each start, so ``-x`` / ``--maxfail`` stop new episodes at once; ``admit`` is asked last, and
a key it refuses, when the consumer waits for it, ends with ``not_started(reason)`` instead of a result.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import threading
from collections.abc import Callable, Coroutine, Iterable
from typing import Any


class EpisodeScheduler:
    """Runs keyed coroutines ahead of their consumer, at most ``concurrency`` at a time.

    Args:
        concurrency: Episodes in flight at most.
        make: ``make(key)`` returns the coroutine that produces the key's result; called on the loop.
        upcoming: ``upcoming(key)`` yields the keys this process will ask for from ``key`` on, in order.
        should_stop: Whether to start nothing new (``-x``, ``--maxfail``, an interrupt).
        prepare: ``prepare(key)`` is called once (on the loop, so it must not block) for each of the next
            ``concurrency`` keys waiting for a free slot, so that their data is ready when they start.
        admit: Asked just before a key starts: ``None`` lets it start, ``""`` holds it back until an episode in
            flight ends, another reason refuses it (and, once refused, every later key: the caller's gate stays
            closed).
        not_started: The exception a refused key's consumer gets, from the reason.
    """

    def __init__(self, *, concurrency: int, make: Callable[[str], Coroutine[Any, Any, Any]],
                 upcoming: Callable[[str], Iterable[str]], should_stop: Callable[[], bool] = lambda: False,
                 prepare: Callable[[str], None] | None = None,
                 admit: Callable[[], str | None] = lambda: None,
                 not_started: Callable[[str], BaseException] = RuntimeError):
        self.concurrency = max(1, concurrency)
        #: How far beyond the consumer's current key to start; bounds the results held waiting.
        self.lookahead = max(4 * self.concurrency, self.concurrency + 8)
        self._make = make
        self._upcoming = upcoming
        self._should_stop = should_stop
        self._prepare = prepare
        self._admit = admit
        self._not_started = not_started
        self._prepared: set[str] = set()
        self._lock = threading.Lock()
        self._futures: dict[str, concurrent.futures.Future[Any]] = {}
        self._started: set[str] = set()
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._cursor: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._closing = False
        #: The most episodes that were in flight at once.
        self.peak_in_flight = 0

    # -- consumer side (pytest's thread) -----------------------------------------------------------

    def result(self, key: str) -> Any:
        """The result of ``key``, starting it (and the upcoming ones) if needed; blocks until it is done.

        Raises:
            Exception: Whatever the key's coroutine raised.
            concurrent.futures.CancelledError: The scheduler was closed before the key finished.
        """
        loop = self._ensure_loop()
        with self._lock:
            future = self._futures.setdefault(key, concurrent.futures.Future())
        loop.call_soon_threadsafe(self._advance, key)
        try:
            return future.result()
        finally:
            with self._lock:
                self._futures.pop(key, None)

    def close(self) -> None:
        """Start nothing more, cancel the episodes in flight, stop the loop."""
        loop = self._loop
        self._closing = True
        if loop is None:
            return
        done = threading.Event()

        def cancel_all() -> None:
            for task in list(self._tasks.values()):
                task.cancel()

            async def wait_and_stop() -> None:
                if self._tasks:
                    await asyncio.wait(list(self._tasks.values()), timeout=5)
                loop.stop()
                done.set()

            loop.create_task(wait_and_stop())

        loop.call_soon_threadsafe(cancel_all)
        done.wait(timeout=10)
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            for future in self._futures.values():
                future.cancel()
        self._loop = None

    # -- loop side ---------------------------------------------------------------------------------

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            # One thread per episode in flight (a sync role call holds one), plus a few for judges and
            # memory builds that overlap them.
            self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=self.concurrency + 4,
                                                                   thread_name_prefix="vita-role")
            loop.set_default_executor(self._executor)
            self._thread = threading.Thread(target=loop.run_forever, name="vita-scheduler", daemon=True)
            self._thread.start()
            self._loop = loop
        return self._loop

    def _advance(self, key: str) -> None:
        self._cursor = key
        self._fill()

    def _fill(self) -> None:
        if self._closing or self._cursor is None:
            return
        if self._cursor not in self._started and not self._should_stop():
            if len(self._tasks) < self.concurrency and not self._try_launch(self._cursor):
                return
        waiting = 0
        for key in itertools.islice(self._upcoming(self._cursor), self.lookahead):
            if key in self._started:
                continue
            if self._should_stop():
                break
            if len(self._tasks) < self.concurrency:
                if not self._try_launch(key):
                    break
            elif self._prepare is not None and waiting < self.concurrency:
                waiting += 1
                if key not in self._prepared:
                    self._prepared.add(key)
                    self._prepare(key)
            else:
                break

    def _try_launch(self, key: str) -> bool:
        """Start ``key`` if ``admit`` lets it; else end the waiting consumer's key (never started) and say no."""
        reason = self._admit()
        if reason is None:
            self._launch(key)
            return True
        if reason == "" and self._tasks:  # not yet: the next episode to end fills again
            return False
        cursor = self._cursor
        if cursor is not None and cursor not in self._started:
            with self._lock:
                future = self._futures.get(cursor)
            if future is not None and not future.done():
                future.set_exception(self._not_started(reason))
        return False

    def _launch(self, key: str) -> None:
        assert self._loop is not None
        self._started.add(key)
        with self._lock:
            future = self._futures.setdefault(key, concurrent.futures.Future())
        task = self._loop.create_task(self._run(key, future))
        self._tasks[key] = task
        self.peak_in_flight = max(self.peak_in_flight, len(self._tasks))

    async def _run(self, key: str, future: concurrent.futures.Future[Any]) -> None:
        try:
            value = await self._make(key)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:  # handed to the consumer, who reports it on the item
            if not future.cancelled():
                future.set_exception(exc)
        else:
            if not future.cancelled():
                future.set_result(value)
        finally:
            self._tasks.pop(key, None)
            self._fill()
