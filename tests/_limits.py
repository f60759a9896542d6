"""Checks of a rate limit at the server that hold however busy the machine is.

Arrival times alone cannot show "never more than ``limit`` per window": a request stamped early in its
window may reach the server late (the machine was busy) and land in the next window with others. What
ordering does guarantee: with one request in flight at a time (``max_concurrency=1``), request ``i``
reaches the server before request ``i + 1`` takes its rate slot (the client takes the slot inside the
concurrency slot, right before the request goes out). Any ``limit + 1`` consecutive rate slots span a
window, so for the arrival times ``t`` in order, ``t[j + 1 + limit * m] - t[j] >= m * window`` for every
``j`` and ``m``. A limiter that lets ``limit + 1`` requests through in one window breaks that for ``m = 1``.
"""

from __future__ import annotations

from collections.abc import Sequence


def assert_serial_rate_held(times: Sequence[float], limit: int, window: float) -> None:
    """Fail if the arrivals ``times`` of one-at-a-time requests break ``limit`` per ``window`` (see above)."""
    t = sorted(times)
    for m in range(1, len(t) // limit + 1):
        for j in range(len(t) - 1 - limit * m):
            gap = t[j + 1 + limit * m] - t[j]
            assert gap >= m * window - 1e-6, (
                f"arrivals {j} and {j + 1 + limit * m} are {gap:.3f} s apart; {limit} per {window:g} s allows "
                f"no less than {m * window:g} s")
