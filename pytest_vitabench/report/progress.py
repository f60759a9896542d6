"""Live progress of a long run, computed from the results as they arrive (controller side).

It depends only on results arriving, never on how items are scheduled, so it is the same with one
process, with xdist workers, or with many episodes in flight per process.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..options.values import parse_interval as parse_interval

#: Suite files at least this large get a line before they are loaded and validated.
LARGE_SUITE_BYTES = 1_000_000


def large_suite_files(args: Iterable[str], cwd: Path, patterns: Iterable[str],
                      min_bytes: int = LARGE_SUITE_BYTES) -> list[tuple[str, int]]:
    """The suite files among the command-line ``args`` (files, or suites in named directories as collection
    finds them: by ``patterns`` or by shape) of at least ``min_bytes``: collecting those takes seconds, worth
    a line first."""
    from ..suite.discovery import is_json_file, is_suite_file

    patterns = list(patterns)
    found: list[tuple[str, int]] = []
    for arg in args:
        path = Path(cwd) / str(arg).split("::", 1)[0]
        if path.is_file():
            candidates = [path]
        elif path.is_dir():
            candidates = []
            for root, dirs, files in os.walk(path):
                dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "node_modules")]
                candidates += [Path(root) / name for name in files if is_json_file(name)]
        else:
            continue
        for candidate in sorted(candidates):
            if is_json_file(candidate.name):
                size = candidate.stat().st_size
                if size >= min_bytes and (candidate == path or is_suite_file(candidate, patterns)):
                    shown = os.path.relpath(candidate, cwd) if candidate.is_relative_to(cwd) else str(candidate)
                    found.append((shown, size))
    return found


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class Progress:
    """Counts of the items done so far and the line that reports them every ``interval_s`` (``None``: never)."""

    def __init__(self, interval_s: float | None, clock: Callable[[], float] = time.monotonic,
                 started: float | None = None):
        self.interval_s = interval_s
        self.clock = clock
        self.started = clock() if started is None else started
        self.last_line = self.started
        self.planned: int | None = None
        self.done = 0
        self.errors = 0
        self.judged = 0
        self.reward_sum = 0.0
        self.tokens = 0
        self.prompt_tokens = 0
        self.cached_prompt_tokens = 0
        self.cost = 0.0
        #: Items the run never started, by reason (``budget``...): neither done nor failed.
        self.not_run: dict[str, int] = {}

    def plan(self, planned: int) -> None:
        """Set the number of items this run will report (once collection is known)."""
        self.planned = planned

    def add(self, payload: Mapping[str, Any]) -> None:
        """Count one result (the JSON dict of an :class:`~pytest_vitabench.result.ItemResult`)."""
        self.done += 1
        outcome = payload.get("outcome")
        if outcome == "error":
            self.errors += 1
        if outcome != "skipped":
            self.judged += 1
            self.reward_sum += float(payload.get("reward") or 0.0)
        for usage in (payload.get("usage") or {}).values():
            if isinstance(usage, Mapping):
                prompt = int(usage.get("prompt_tokens") or 0)
                self.tokens += prompt + int(usage.get("completion_tokens") or 0)
                self.prompt_tokens += prompt
                self.cached_prompt_tokens += int(usage.get("cached_prompt_tokens") or 0)
                self.cost += float(usage.get("cost") or 0.0)

    def add_not_run(self, reason: str) -> None:
        """Count one item the run did not start (it stopped starting items for ``reason``)."""
        self.not_run[reason] = self.not_run.get(reason, 0) + 1

    def due(self) -> bool:
        """Whether a line is due now; marks it printed when it is."""
        if self.interval_s is None or self.done == 0:
            return False
        now = self.clock()
        if now - self.last_line < self.interval_s:
            return False
        self.last_line = now
        return True

    def eta_s(self) -> float | None:
        """Seconds left at the pace so far, or ``None`` when unknown."""
        if not self.planned or not self.done or self.done + sum(self.not_run.values()) >= self.planned:
            return None
        elapsed = self.clock() - self.started
        return elapsed / self.done * (self.planned - self.done)

    def line(self) -> str:
        """E.g. ``vitabench: 120/3136 items (3.8%), 2m05s elapsed, ETA 52m24s, Avg 0.712, 1,234 tokens
        (76% of prompt cached), $0.0123, 0 errors`` (the cached share only when a provider reported one)."""
        elapsed = self.clock() - self.started
        if self.planned:
            head = f"vitabench: {self.done}/{self.planned} items ({100 * self.done / self.planned:.1f}%)"
        else:
            head = f"vitabench: {self.done} items"
        parts = [head, f"{_duration(elapsed)} elapsed"]
        eta = self.eta_s()
        if eta is not None:
            parts.append(f"ETA {_duration(eta)}")
        if self.judged:
            parts.append(f"Avg {self.reward_sum / self.judged:.3f}")
        tokens = f"{self.tokens:,} tokens"
        if self.cached_prompt_tokens and self.prompt_tokens:
            tokens += f" ({self.cached_prompt_tokens / self.prompt_tokens:.0%} of prompt cached)"
        parts.append(f"{tokens}, ${self.cost:.4f}")
        parts.append(f"{self.errors} error{'s' if self.errors != 1 else ''}")
        parts.extend(f"{count} not run: {reason}" for reason, count in sorted(self.not_run.items()))
        return ", ".join(parts)
