"""The self-contained HTML viewer of a run: one file, no server, no network.

Built for paper scale: only a compact index row per item and the run's summary are parsed at load. The
details of one (user, subtask)'s items sit together (they repeat the same tool results) gzip-compressed in
one inert script block, unpacked when one is opened; memory texts are stored once per distinct line per user
(the trials of a subtask share their memory, a user's subtasks most of their history).
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from collections import defaultdict
from collections.abc import Mapping
from importlib import resources
from typing import Any

from ..report.failures import CATEGORIES
from ..runs.reader import Run
from .catalogue import Catalogue

#: Index columns, in the order of each row of ``vita-index``.
INDEX_COLUMNS = ["nodeid", "user_id", "subtask_id", "position", "domain", "skills", "memory", "trial", "reward",
                 "outcome", "termination", "steps", "tokens", "cost", "category", "summary", "chunk"]
_ID_PATTERN = re.compile(r"\b[A-Z]{1,3}[0-9A-F]{6,}\b")


def _json_script(element_id: str, value: Any) -> str:
    # "<" escaped as \u003c: nothing inside can close the script element or open a comment.
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>\n'


def _packed_script(element_id: str, value: Any) -> str:
    """JSON, gzip-compressed (fixed mtime, so the page is reproducible) and base64-encoded."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")
    return f'<script type="application/gzip+base64" id="{element_id}">{packed}</script>\n'


def _summary(item: Mapping[str, Any]) -> str:
    """One line for the list: the error, or the first unmet rubric."""
    if item.get("outcome") == "error":
        return f"error: {item.get('error') or ''}"[:160]
    unmet = [r for r in item.get("rubrics") or [] if r.get("met") is False]
    if unmet:
        extra = f" (+{len(unmet) - 1})" if len(unmet) > 1 else ""
        return f"x {unmet[0].get('text')}{extra}"[:160]
    return ""


def _usage_totals(item: Mapping[str, Any]) -> tuple[int, float]:
    tokens, cost = 0, 0.0
    for usage in (item.get("usage") or {}).values():
        if isinstance(usage, Mapping):
            tokens += int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
            cost += float(usage.get("cost") or 0.0)
    return tokens, cost


def _id_bearing_text(detail: Mapping[str, Any]) -> str:
    """The parts of an item where bare ids appear: verdict reasons, tool-call arguments, the agent's words
    (tool results name their entities already, and are most of a trajectory's bytes)."""
    parts = [str(r.get("reason", "")) for r in detail["rubrics"]]
    for message in detail["messages"]:
        if message.get("role") == "assistant":
            parts.append(str(message.get("content") or ""))
            calls = message.get("tool_calls") or []
            parts.extend(json.dumps(call.get("arguments"), ensure_ascii=False) for call in calls)
    return "\n".join(parts)


def _compact_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message without empty fields (the report's messages carry many nulls)."""
    return {k: v for k, v in message.items() if v not in (None, False, "", []) and k != "usage"}


class _MemoryLines:
    """Memory texts stored once per distinct line per user and referenced by line numbers."""

    def __init__(self) -> None:
        self.pools: dict[str, dict[str, int]] = defaultdict(dict)
        self._refs: dict[tuple[str, str], int] = {}
        self._blocks: list[tuple[str, list[int]]] = []

    def ref(self, user: str, text: str) -> int:
        """The number of ``user``'s memory ``text`` (``-1`` for none)."""
        if not text:
            return -1
        if (user, text) not in self._refs:
            pool = self.pools[user]
            self._refs[(user, text)] = len(self._blocks)
            self._blocks.append((user, [pool.setdefault(line, len(pool)) for line in text.split("\n")]))
        return self._refs[(user, text)]

    def scripts(self) -> list[str]:
        """The packed ``vita-memories`` block, then one ``vita-lines-N`` block per user."""
        number = {u: i for i, u in enumerate(sorted(self.pools))}
        memories = [[number[u], lines] for u, lines in self._blocks]
        return [_packed_script("vita-memories", memories),
                *(_packed_script(f"vita-lines-{number[u]}", list(self.pools[u])) for u in sorted(self.pools))]


def _detail(run: Run, item: Mapping[str, Any], memory_ref: int) -> dict[str, Any]:
    """What the page shows of one item once it is opened."""
    return {
        "messages": [_compact_message(m) for m in run.messages(item["nodeid"])],
        "rubrics": item.get("rubrics") or [],
        "usage": item.get("usage") or {},
        "error": item.get("error"),
        "tool_errors": item.get("tool_errors", 0),
        "duration_s": item.get("duration_s"),
        "seed": item.get("seed"),
        "judge_details": item.get("judge_details") or {},
        "memory_ref": memory_ref,
    }


def build_viewer(run: Run, *, catalogue: Catalogue | None = None, metrics_lines: list[str] | None = None,
                 plots: Mapping[str, Any] | None = None, failures: Mapping[str, Any] | None = None,
                 comparison: Mapping[str, Any] | None = None, title: str | None = None,
                 judge: Mapping[str, Any] | None = None, judge_audit: Mapping[str, Any] | None = None) -> str:
    """The viewer page of a run.

    Args:
        catalogue: Names behind ids and suite statuses; ``None`` shows bare ids.
        metrics_lines: The terminal's metrics table.
        comparison: ``Comparison.to_dict()`` against a baseline, shown as its own tab.
        judge: The report's ``judge`` figures; ``judge_audit``: a ``vitabench judge-audit`` report's block.
    """
    categories = (failures or {}).get("items") or {}
    index_rows = []
    chunk_of: dict[tuple[str, str], int] = {}
    chunk_items: list[dict[str, Any]] = []
    memory = _MemoryLines()
    mentioned: set[str] = set()
    for number, item in enumerate(run.results):
        nodeid = item["nodeid"]
        tokens, cost = _usage_totals(item)
        unit = (str(item.get("user_id")), str(item.get("subtask_id")))
        if unit not in chunk_of:
            chunk_of[unit] = len(chunk_items)
            chunk_items.append({})
        index_rows.append([nodeid, item.get("user_id"), item.get("subtask_id"), int(item.get("subtask_index") or 0) + 1,
                           item.get("domain"), item.get("skills") or [], item.get("memory"), item.get("trial"),
                           item.get("reward"), item.get("outcome"), item.get("termination"), item.get("steps"),
                           tokens, round(cost, 6), categories.get(nodeid, ""), _summary(item), chunk_of[unit]])
        detail = _detail(run, item, memory.ref(str(item.get("user_id")), run.memory_snapshot(nodeid)))
        if catalogue is not None and catalogue.names:
            mentioned.update(_ID_PATTERN.findall(_id_bearing_text(detail)))
        chunk_items[chunk_of[unit]][str(number)] = detail
    chunks = [_packed_script(f"vita-chunk-{number}", items) for number, items in enumerate(chunk_items)]
    names = {} if catalogue is None else {i: catalogue.names[i] for i in sorted(mentioned) if i in catalogue.names}
    page_title = title or run.path.name
    meta = {
        "title": page_title,
        "source": str(run.path),
        "config": run.config,
        "metrics_lines": metrics_lines or [],
        "plots": plots or {},
        "failures": {"categories": CATEGORIES, "cells": (failures or {}).get("cells") or []},
        "comparison": comparison,
        "judge": judge,
        "judge_audit": judge_audit,
        "suites": [] if catalogue is None else [s.__dict__ for s in catalogue.statuses],
        "columns": INDEX_COLUMNS,
    }
    template = resources.files(__package__).joinpath("viewer.html").read_text(encoding="utf-8")
    data = "".join([
        _json_script("vita-meta", meta),
        _json_script("vita-index", index_rows),
        _json_script("vita-names", names),
        *memory.scripts(),
        *chunks,
    ])
    return (template.replace("__TITLE__", html.escape(page_title))
            .replace("<!--__DATA__-->", data))
