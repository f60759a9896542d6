"""Deferred answers: LLM calls of some roles answered later, from a batch, instead of over HTTP at once.

A deferred call not answered yet is queued under its cache key and raises :class:`AnswerPending`; the batch
judge runs the same code again once the answers are in, so both paths read the same completions the same
way. Usage is kept here, not in the ledger: a judge is replayed once per round, and only its last, complete
pass counts.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..messages import Usage


class AnswerPending(Exception):  # noqa: N818 - not an error: the call's answer is on its way
    """The call's request is queued for a batch; run the caller again once the batch is answered."""

    def __init__(self, key: str):
        super().__init__(f"answer {key[:12]} pending in a batch")
        self.key = key


@dataclass
class DeferredAnswers:
    """The answers known so far (by request key: ``{"payload": ...}`` or ``{"error": ...}``, with its
    ``batch_id``) and the requests still to send, for the calls of ``roles``."""

    roles: frozenset[str]
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    _usage: dict[int, list[tuple[str, Usage, str, bool]]] = field(default_factory=dict)
    _batches: dict[int, list[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def defers(self, role: str) -> bool:
        return role in self.roles

    def queue(self, key: str, request: dict[str, Any]) -> AnswerPending:
        with self._lock:
            self.pending.setdefault(key, request)
        return AnswerPending(key)

    def waiting(self) -> dict[str, dict[str, Any]]:
        """A copy of ``pending``, safe while other threads queue requests."""
        with self._lock:
            return dict(self.pending)

    def add_answers(self, answers: dict[str, dict[str, Any]], keys: Iterable[str] = ()) -> None:
        """Answers arrived (from a batch or the journal); their keys leave ``pending``."""
        with self._lock:
            self.answers.update(answers)
            for key in [*answers, *keys]:
                self.pending.pop(key, None)

    def note_usage(self, role: str, usage: Usage, model: str, priced: bool) -> None:
        """A deferred role's call returned: its usage, kept for the pass of the calling thread."""
        with self._lock:
            self._usage.setdefault(threading.get_ident(), []).append((role, usage, model, priced))

    def note_batch(self, batch_id: str | None) -> None:
        """The calling thread's pass read an answer of ``batch_id``."""
        if batch_id:
            with self._lock:
                self._batches.setdefault(threading.get_ident(), []).append(batch_id)

    def take_pass(self) -> tuple[list[tuple[str, Usage, str, bool]], list[str]]:
        """What this thread noted since it last took it (one pass of one judge): ``(role, usage, model,
        priced)`` per call, and the batches that answered (in order, without repeats)."""
        with self._lock:
            ident = threading.get_ident()
            return self._usage.pop(ident, []), list(dict.fromkeys(self._batches.pop(ident, [])))
