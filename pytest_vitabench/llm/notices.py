"""Retries on the terminal while they happen: a line per retry, at most one every few seconds per process.

A retried request otherwise shows only as a count in the usage table at the end, which leaves a run that waits
minutes on a slow or failing endpoint silent. The plugin attaches the sink (its real stderr); a library user who
attaches none gets the ``pytest_vitabench.llm`` log records only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: Hosts of a server on this machine: typically one slot, so the run's concurrent requests queue at it.
_LOCAL_HOSTS = ("127.", "localhost", "[::1]", "0.0.0.0")


class Notices:
    """Rate-limited retry lines.

    Args:
        every_s: The least time between two lines; the retries in between are counted in the next one.
        clock: Seconds, monotonic (a test's stand-in).
    """

    def __init__(self, every_s: float = 10.0, clock: Callable[[], float] = time.monotonic):
        self.every_s = every_s
        self._clock = clock
        self._sink: Callable[[str], None] | None = None
        self._lock = threading.Lock()
        self._last: float | None = None
        self._held = 0
        self._hinted = False

    def attach(self, sink: Callable[[str], None] | None) -> None:
        """Send lines to ``sink`` from now on (``None``: nowhere); the rate limit starts afresh."""
        with self._lock:
            self._sink, self._last, self._held, self._hinted = sink, None, 0, False

    def retrying(self, *, role: str, host: str, model: str, what: str, attempt: int, retries: int, wait: float,
                 timed_out: bool, timeout_s: float) -> None:
        """A request failed (``what``) and is retried in ``wait`` seconds (``attempt`` of ``retries``)."""
        with self._lock:
            sink = self._sink
            if sink is None:
                return
            now = self._clock()
            if self._last is not None and now - self._last < self.every_s:
                self._held += 1
                return
            held, self._held, self._last = self._held, 0, now
            hint = timed_out and not self._hinted and any(h in host for h in _LOCAL_HOSTS)
            self._hinted = self._hinted or hint
        line = (f"vitabench: {role} call to {host} (model {model}): {what}; retry {attempt}/{retries} in {wait:.1f} s"
                + (f" (+{held} more retried since the last line)" if held else ""))
        if hint:
            line += (f"\nvitabench: hint: a local server that answers one request at a time queues the run's "
                     f"concurrent requests past the {timeout_s:g} s timeout; run with --vita-concurrency 1, or "
                     f"raise it with --vita-limits timeout=SECONDS")
        sink(line)


#: This process's notices: every client's retries go here.
NOTICES = Notices()
