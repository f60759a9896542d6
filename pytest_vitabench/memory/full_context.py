"""The ``full_context`` backend: every history record as text, truncated from the front to a budget."""

from __future__ import annotations

from collections.abc import Callable

from ..suite.schema import DailyRecord, EventRecord
from .base import EMPTY_MEMORY, MemoryContext
from .render import render_records
from .spec import MemoryOptions, MemorySpec
from .tokens import count_tokens, keep_last_tokens

#: VitaBench 2.0's budget (memory.yaml ``full_context.max_tokens``).
DEFAULT_MAX_TOKENS = 102_400


class FullContextMemory:
    def __init__(self, max_tokens: int = DEFAULT_MAX_TOKENS, *,
                 render: Callable[[list[DailyRecord | EventRecord]], str] = render_records,
                 empty: str = EMPTY_MEMORY) -> None:
        """``max_tokens``: the budget the text is cut to, from the front; ``render``: records to text (the harness's
        own wording's with its source); ``empty``: an empty memory's text (nothing in VitaBench 2.0)."""
        self.max_tokens = max_tokens
        self._render = render
        self._empty = empty
        self._chunks: list[str] = []
        # Counted once per update: re-tokenising the whole history on every read dominated paper-scale runs.
        self._tokens = 0
        self._text: str | None = None

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        text = self._render(records)
        if text:
            self._chunks.append(text)
            self._tokens += count_tokens(text)
            self._text = None

    def read(self, query: str | None = None) -> str:
        if not self._chunks:
            return self._empty
        if self._text is None:
            joined = "\n".join(self._chunks)
            self._text = joined if self._tokens <= self.max_tokens else keep_last_tokens(joined, self.max_tokens)
        return self._text


def build(options: MemoryOptions) -> Callable[[], FullContextMemory]:
    budget = options.full_context_max_tokens or DEFAULT_MAX_TOKENS
    wording = options.wording()
    if wording is not None:
        return lambda: FullContextMemory(max_tokens=budget, render=wording.render_records, empty="")
    return lambda: FullContextMemory(max_tokens=budget)


SPEC = MemorySpec(name="full_context", build=build, deterministic=True, counts_tokens=True, leaderboard=True,
                  pivot=3)
