"""A custom pytest-vitabench memory backend: keyword retrieval over the user's history.

The whole protocol in one small class:

* ``update(records, context)``: ingest the interaction records that happened before the next subtask
  (``context.now`` is that subtask's time, ``context.language`` its language);
* ``read(query=None)``: the text the agent is given; ``query`` is the subtask's instruction;
* optional ``tools()``: extra tools for the agent (here a keyword search of the memory);
* optional ``state()`` / ``load_state()`` / ``fingerprint()``: checkpoints, so a late subtask selected
  alone does not replay every update;
* optional ``deterministic = True``: one memory serves every trial.

The constructor may name any option the harness offers (the fields of ``pytest_vitabench.MemoryOptions``:
``language``, ``llm_client``, ``memory_model``, ``cache_dir``...) or take ``**options``.

Use it as ``pytest suites/demo --vita-memory keywords`` once installed (entry point), or without
installing as ``--vita-memory vitabench_memory_keywords:KeywordMemory``.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_vitabench import EMPTY_MEMORY, DailyRecord, EventRecord, MemoryContext, Tool, render_record

# Latin words of 3+ letters, and CJK character pairs (Chinese has no spaces to split on).
_WORDS = re.compile(r"[a-z]{3,}|[\u4e00-\u9fff]{2}")


def _keywords(text: str) -> set[str]:
    text = text.lower()
    pairs = {m.group(0) for i in range(2) for m in _WORDS.finditer(text, i)}
    return pairs


class KeywordMemory:
    """Keeps every history line; ``read(query)`` returns the lines sharing the most keywords with it."""

    name = "keywords"
    deterministic = True

    def __init__(self, language: str = "en", top_k: int = 12):
        self.language = language
        self.top_k = top_k
        self.lines: list[str] = []

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        for record in records:
            self.lines.extend(render_record(record))

    def read(self, query: str | None = None) -> str:
        if not self.lines:
            return EMPTY_MEMORY
        if not query:
            return "\n".join(self.lines[-self.top_k:])
        wanted = _keywords(query)
        scored = [(len(wanted & _keywords(line)), i) for i, line in enumerate(self.lines)]
        best = sorted((i for score, i in scored if score), key=lambda i: (-scored[i][0], i))[:self.top_k]
        if not best:
            return "\n".join(self.lines[-self.top_k:])
        return "\n".join(self.lines[i] for i in sorted(best))  # chronological

    def tools(self) -> list[Tool]:
        return [Tool(name="search_history", description="Search the user's history for lines about a topic.",
                     parameters={"type": "object", "required": ["topic"],
                                 "properties": {"topic": {"type": "string", "description": "What to look for."}}},
                     fn=lambda topic: self.read(topic))]

    def state(self) -> dict[str, Any]:
        return {"lines": list(self.lines)}

    def load_state(self, state: dict[str, Any]) -> None:
        self.lines = list(state["lines"])

    def fingerprint(self) -> dict[str, Any]:
        return {"version": 1}
