"""A what-if pytest plugin for ``bench_paper.py --what-if``: ``full_context`` with a running token count.

Not part of the package. It measures how fast the paper-scale run would be if
``memory/full_context.py`` counted each history chunk's tokens once, at ``update``, and truncated in
``read`` only when the total exceeds the budget (the text agents see is identical: histories under the
budget are returned whole, longer ones are cut by the same ``keep_last_tokens``). Today every ``read``
re-tokenises the whole history, about 0.1 s for a 2,000-event user, once per item.

    PYTHONPATH=benchmarks pytest suites/paper -p whatif_fast_full_context ...
"""

from __future__ import annotations

from typing import Any

from pytest_vitabench.memory import full_context
from pytest_vitabench.memory.render import render_records
from pytest_vitabench.memory.tokens import count_tokens, keep_last_tokens


def _update(self: Any, records: list[Any], context: Any) -> None:
    text = render_records(records)
    if text:
        self._chunks.append(text)
        self.__dict__["_total"] = self.__dict__.get("_total", 0) + count_tokens(text)
        self.__dict__.pop("_text", None)


def _read(self: Any, query: str | None = None) -> str:
    if not self._chunks:
        return full_context.EMPTY_MEMORY
    text = self.__dict__.get("_text")
    if text is None:
        joined = "\n".join(self._chunks)
        over = self.__dict__.get("_total", 0) > self.max_tokens
        text = keep_last_tokens(joined, self.max_tokens) if over else joined
        self.__dict__["_text"] = text
    return text


full_context.FullContextMemory.update = _update  # type: ignore[method-assign]
full_context.FullContextMemory.read = _read  # type: ignore[method-assign]
