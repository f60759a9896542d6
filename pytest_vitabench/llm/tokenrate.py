"""A tokens-per-window budget shared by every process of a run (``--vita-limits tpm``), and the pause a provider's
token-limit 429 imposes on all of them.

Each request is charged *before* it is sent with an estimate of what the provider will count, and the
charge is *corrected* to the response's ``usage``, so an estimate that was off costs at most one request's
error while it is in the window. The state is one locked file in the run's shared directory: the charges
inside the window and a "paused until" stamp. A request larger than the whole budget goes alone into an
empty window (refusing it would stall the run for ever). A token-limit 429 pauses every process: the other
workers would otherwise run into the same wall one after another.
"""

from __future__ import annotations

import json
import os
import struct
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..store.lock import FileLock, read_at, write_at
from .ratelimit import guard_for, private_state_dir, wait_for

#: One charge: when it was made (wall clock, shared by every process), its tokens, its ticket.
_CHARGE = struct.Struct("<ddQ")
#: The file's head: the paused-until stamp and the next ticket number.
_HEAD = struct.Struct("<dQ")
#: Tokens a chat message costs beyond its text (role, separators), as OpenAI's counting guide has it.
MESSAGE_OVERHEAD = 4


def estimate_request_tokens(request: Mapping[str, Any], count_tokens: Callable[[str], int]) -> int:
    """What a provider's token limiter charges a chat or embeddings ``request`` on arrival: prompt tokens
    plus the completion allowance. Tool schemas count as their JSON text, a little over: an over-estimate
    only delays a request until the response's usage corrects it."""
    total = 0
    for message in request.get("messages") or ():
        total += MESSAGE_OVERHEAD + count_tokens(_text_of(message.get("content")))
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            total += count_tokens(f"{function.get('name') or ''}{function.get('arguments') or ''}")
    if request.get("tools"):
        total += count_tokens(json.dumps(request["tools"], ensure_ascii=False, separators=(",", ":")))
    inputs = request.get("input")
    if inputs is not None:  # an embeddings request
        total += sum(count_tokens(str(text)) for text in ([inputs] if isinstance(inputs, str) else inputs))
    allowance = request.get("max_completion_tokens") or request.get("max_tokens") or 0
    return total + int(allowance)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable) and not isinstance(content, (bytes, Mapping)):
        return "".join(str(part.get("text") or "") for part in content if isinstance(part, Mapping))
    return "" if content is None else str(content)


class TokenBudget:
    """Tokens per ``window_s`` for every process sharing ``state_dir``.

    Args:
        state_dir: The run's shared directory; ``None``: a private one (the budget holds in this process).
        tokens: The budget per window; ``None``: unlimited (the token-limit pause still applies).
    """

    def __init__(self, state_dir: Path | str | None, *, tokens: int | None, window_s: float = 60.0,
                 max_wait_s: float = 3600.0, scope: str = "llm"):
        self.tokens = tokens
        self.window_s = window_s
        #: Charges are kept this much longer than the window: we stamp a request a moment before the
        #: provider counts it.
        self.kept_s = window_s + guard_for(window_s)
        self.max_wait_s = max_wait_s
        self._state_dir = Path(state_dir) if state_dir is not None else None
        self._name = f"{scope}.tokens-{tokens or 0}-per-{window_s:g}s"
        self._file: Path | None = None

    @property
    def path(self) -> Path:
        if self._file is None:
            root = self._state_dir or private_state_dir()
            root.mkdir(parents=True, exist_ok=True)
            self._file = root / self._name
        return self._file

    def charge(self, tokens: int) -> int | None:
        """Wait until ``tokens`` fit the window (and any pause is over), charge them; the ticket that
        :meth:`correct` takes (``None``: no budget set). :class:`LimiterTimeout` after ``max_wait_s``."""
        charged: list[int | None] = []

        def take() -> float | None:
            with FileLock(self.path) as lock:
                now = time.time()
                paused_until, ticket, charges = _read(lock.fd, now - self.kept_s)
                free_at = paused_until if paused_until > now else None
                if free_at is None and self.tokens:
                    free_at = _fits_at(charges, tokens, self.tokens, self.kept_s)
                if free_at is None or free_at <= now:
                    if self.tokens:
                        charges.append((now, float(tokens), ticket))
                        _write(lock.fd, paused_until, ticket + 1, charges)
                    charged.append(ticket if self.tokens else None)
                    return None
            return min(free_at - now, self.window_s)

        wait_for(take, max_wait_s=self.max_wait_s,
                 refused=f"{tokens} tokens did not fit the token budget ({self.tokens} per {self.window_s:g} s)")
        return charged[0]

    def correct(self, ticket: int | None, tokens: int) -> None:
        """Replace the estimate of charge ``ticket`` with the tokens the provider counted (``0`` for a
        request it refused); nothing if the charge has already left the window."""
        if ticket is None:
            return
        with FileLock(self.path) as lock:
            paused_until, next_ticket, charges = _read(lock.fd, time.time() - self.kept_s)
            kept = [(t, float(tokens) if number == ticket else spent, number) for t, spent, number in charges]
            _write(lock.fd, paused_until, next_ticket, kept)

    def pause(self, seconds: float) -> None:
        """Hold every process's next charge for ``seconds`` (a provider's token-limit reset)."""
        with FileLock(self.path) as lock:
            now = time.time()
            paused_until, ticket, charges = _read(lock.fd, now - self.kept_s)
            _write(lock.fd, max(paused_until, now + seconds), ticket, charges)

    def used(self) -> float:
        """Tokens charged in the current window (for tests and the progress line)."""
        with FileLock(self.path) as lock:
            _, _, charges = _read(lock.fd, time.time() - self.kept_s)
        return sum(spent for _, spent, _ in charges)


def _fits_at(charges: list[tuple[float, float, int]], tokens: int, budget: int, window_s: float) -> float | None:
    """When ``tokens`` more fit the window: ``None`` now; else the moment enough old charges expire."""
    spent = sum(c[1] for c in charges)
    if spent + tokens <= budget or not charges:
        return None
    for stamp, amount, _ in sorted(charges):
        spent -= amount
        if spent + tokens <= budget or spent <= 0:
            return stamp + window_s
    return None  # pragma: no cover - the loop empties the window at the latest


def _read(fd: int, since: float) -> tuple[float, int, list[tuple[float, float, int]]]:
    """The paused-until stamp, the next ticket and the charges made after ``since``."""
    size = os.fstat(fd).st_size
    if size < _HEAD.size:
        return 0.0, 0, []
    paused_until, ticket = _HEAD.unpack(read_at(fd, 0, _HEAD.size))
    body = read_at(fd, _HEAD.size, size - _HEAD.size)
    usable = len(body) - len(body) % _CHARGE.size  # a torn tail (a crash mid-write) is dropped
    charges = (_CHARGE.unpack_from(body, i) for i in range(0, usable, _CHARGE.size))
    return paused_until, ticket, [c for c in charges if c[0] > since]


def _write(fd: int, paused_until: float, ticket: int, charges: list[tuple[float, float, int]]) -> None:
    data = _HEAD.pack(paused_until, ticket) + b"".join(_CHARGE.pack(*c) for c in charges)
    write_at(fd, 0, data)
    os.ftruncate(fd, len(data))
