"""A circuit breaker per endpoint: stop sending new work to an endpoint that keeps failing.

Without it a dead endpoint costs every remaining item its full retry budget, so a run of hundreds of items
takes hours to fail. The open state is also written to the run's shared state directory, so every xdist
worker stops, not only the one that saw the failures; a new run (or a resume) starts closed.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

#: Consecutive failed calls to one endpoint before the breaker opens.
DEFAULT_THRESHOLD = 5


class CircuitOpen(RuntimeError):
    """Raised instead of a request while the breaker of the endpoint is open."""


class CircuitBreaker:
    """Counts consecutive infrastructure failures of one endpoint and opens after ``threshold``.

    Args:
        endpoint: The endpoint it guards (without credentials); names the shared state file.
        threshold: Consecutive failures that open it; ``0`` disables the breaker.
        state_dir: The run's shared directory (all xdist workers), or ``None`` for this process only.
    """

    def __init__(self, endpoint: str, *, threshold: int = DEFAULT_THRESHOLD, state_dir: Path | None = None):
        self.endpoint = endpoint
        self.threshold = threshold
        digest = hashlib.sha256(endpoint.encode()).hexdigest()[:16]
        self._file = Path(state_dir) / f"breaker-{digest}.open" if state_dir is not None else None
        self._lock = threading.Lock()
        self._failures = 0
        self._reason: str | None = None

    @property
    def enabled(self) -> bool:
        return self.threshold > 0

    def reason(self) -> str | None:
        """Why the breaker is open, or ``None`` while it is closed."""
        if not self.enabled:
            return None
        with self._lock:
            if self._reason is None and self._file is not None and self._file.exists():
                try:
                    self._reason = self._file.read_text(encoding="utf-8") or "opened by another worker"
                except OSError:
                    return None
            return self._reason

    def check(self) -> None:
        """Raise :class:`CircuitOpen` when the breaker is open."""
        reason = self.reason()
        if reason is not None:
            raise CircuitOpen(
                f"circuit breaker open for {self.endpoint} after {self.threshold} consecutive failed calls; "
                f"not sending more requests in this run. Last failure: {reason}")

    def record_success(self) -> None:
        with self._lock:
            self._failures = 0

    def record_failure(self, message: str) -> bool:
        """Count one failed call; return whether this failure opened the breaker."""
        if not self.enabled:
            return False
        with self._lock:
            self._failures += 1
            if self._reason is not None or self._failures < self.threshold:
                return False
            self._reason = message
        if self._file is not None:
            try:
                self._file.parent.mkdir(parents=True, exist_ok=True)
                self._file.write_text(message, encoding="utf-8")
            except OSError:  # sharing is best effort: this process stops anyway
                pass
        return True
