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
        # Each chunk is counted once: re-tokenising the whole history on every read dominated paper-scale runs.
        # Not before the chunks' UTF-8 bytes pass the budget either: no token is shorter than a byte, so
        # until then the text is within it (the paper suite's users pass it after six subtasks or more).
        self._tokens = 0
        self._counted = 0
        self._bytes = 0
        self._text: str | None = None

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        text = self._render(records)
        if text:
            self._chunks.append(text)
            self._bytes += len(text.encode("utf-8"))
            self._text = None

    def read(self, query: str | None = None) -> str:
        if not self._chunks:
            return self._empty
        if self._text is None:
            joined = "\n".join(self._chunks)
            self._text = joined if self._within_budget() else keep_last_tokens(joined, self.max_tokens)
        return self._text

    def tokens(self) -> int:
        """The tokens of the history's texts, each text counted alone (the budget's measure, without the
        newlines that join them)."""
        for chunk in self._chunks[self._counted:]:
            self._tokens += count_tokens(chunk)
        self._counted = len(self._chunks)
        return self._tokens

    def _within_budget(self) -> bool:
        return self._bytes <= self.max_tokens or self.tokens() <= self.max_tokens


def build(options: MemoryOptions) -> Callable[[], FullContextMemory]:
    budget = options.full_context_max_tokens or DEFAULT_MAX_TOKENS
    wording = options.wording()
    if wording is not None:
        return lambda: FullContextMemory(max_tokens=budget, render=wording.render_records, empty="")
    return lambda: FullContextMemory(max_tokens=budget)


SPEC = MemorySpec(name="full_context", build=build, deterministic=True, counts_tokens=True, leaderboard=True,
                  pivot=3)
