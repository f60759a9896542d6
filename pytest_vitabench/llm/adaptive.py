"""Adaptive concurrency: fewer requests in flight to an endpoint that answers 429, more again while it keeps up.

The rule is AIMD (additive increase, multiplicative decrease), the rule TCP uses for its congestion window,
chosen for the same reasons:

- A 429 says the endpoint is over *some* limit whose size we do not know; halving what is in flight backs
  off fast enough that a storm of 429s stops within a few round trips, whatever the limit is.
- Growing back by one request per round trip (``+1/limit`` per success) probes for spare capacity slowly,
  so the limit settles just under the point where 429s start instead of oscillating between extremes.
- Independent AIMD flows sharing one bottleneck converge to fair shares (Chiu and Jain, 1989). Each
  process of a run (each xdist worker) therefore keeps its own limit and needs no coordination with the
  others; the run-wide budgets (``--vita-rpm``, ``--vita-tpm``, ``--vita-max-concurrency``) stay the
  shared, hard part.

Until the first 429 nothing is limited (``limit`` is ``None``). The first cut sets the limit to half of
what was in flight at that moment. Several requests in flight at the cut usually all come back 429: only a
429 of a request that *started after* the last cut cuts again (TCP's one decrease per round trip).
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
        ceiling: The limit never grows beyond this (``--vita-max-concurrency``, or ``None``: no ceiling;
            the limit is then dropped altogether once it has grown past the most ever in flight).
        minimum: The limit is never cut below this.
    """

    def __init__(self, *, ceiling: int | None = None, minimum: int = 1):
        self.ceiling = ceiling
        self.minimum = minimum
        self.limit: float | None = None
        self.in_flight = 0
        self.peak_in_flight = 0
        self.cuts = 0
        self._last_cut = 0.0
        self._condition = threading.Condition()

    def __repr__(self) -> str:
        limit = "none" if self.limit is None else f"{self.limit:.1f}"
        return f"AdaptiveConcurrency(limit={limit}, in_flight={self.in_flight}, cuts={self.cuts})"

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
        """The request of ``slot`` got a 429: halve the limit, once per round trip.

        The first cut halves what was in flight: the most of the request's start and of now (with the
        request itself, whose slot is already given back).

        Returns:
            Whether the limit was cut.
        """
        with self._condition:
            if slot.started < self._last_cut:
                return False  # in flight when we last cut: that cut already answered it
            current = max(slot.in_flight, self.in_flight + 1) if self.limit is None else self.limit
            self.limit = float(max(self.minimum, int(current // 2)))
            self._last_cut = time.monotonic()
            self.cuts += 1
            return True
