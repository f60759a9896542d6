"""Adaptive concurrency: fewer requests in flight to an endpoint that answers 429, more again while it keeps up.

The rule is TCP's AIMD: halve on a 429, grow by one request per round trip. Independent AIMD flows that
share a bottleneck converge to fair shares, so each process keeps its own limit with no coordination; the
run-wide budgets stay the shared, hard part. Until the first 429 nothing is limited. Only a 429 of a request
that *started after* the last cut cuts again (the others in flight at the cut usually all come back 429).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    """One request's place: when it started and how many requests were in flight with it (itself included)."""

    started: float
    in_flight: int


class AdaptiveConcurrency:
    """An AIMD limit on the requests one process has in flight to one endpoint.

    Args:
        ceiling: The limit never grows beyond this; ``None``: the limit is dropped altogether once it has
            grown past the most ever in flight.
    """

    def __init__(self, *, ceiling: int | None = None):
        self.ceiling = ceiling
        self.limit: float | None = None
        self.in_flight = 0
        self.peak_in_flight = 0
        self.cuts = 0
        self._last_cut = 0.0
        self._condition = threading.Condition()

    @contextmanager
    def slot(self) -> Iterator[Slot]:
        """Hold one request slot for the body; yields it (for :meth:`throttled`)."""
        with self._condition:
            while self.limit is not None and self.in_flight >= int(self.limit):
                self._condition.wait()
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            taken = Slot(started=time.monotonic(), in_flight=self.in_flight)
        try:
            yield taken
        finally:
            with self._condition:
                self.in_flight -= 1
                self._condition.notify()

    def succeeded(self) -> None:
        """The endpoint kept up: one more request in flight per limit's worth of successes."""
        with self._condition:
            if self.limit is None:
                return
            self.limit += 1 / self.limit
            if self.ceiling is not None:
                self.limit = min(self.limit, float(self.ceiling))
            elif self.limit > self.peak_in_flight + 1:
                self.limit = None  # grown past anything we ever sent: no limit left to hold
            self._condition.notify_all()

    def throttled(self, slot: Slot) -> bool:
        """The request of ``slot`` got a 429: halve the limit (the first time, what was in flight) once per
        round trip; whether it was cut."""
        with self._condition:
            if slot.started < self._last_cut:
                return False  # in flight when we last cut: that cut already answered it
            current = max(slot.in_flight, self.in_flight + 1) if self.limit is None else self.limit
            self.limit = float(max(1, int(current // 2)))
            self._last_cut = time.monotonic()
            self.cuts += 1
            return True
