"""Render history records as the one-line-per-event text that memory backends store and agents read."""

from __future__ import annotations

import json
from typing import Any

from ..suite.schema import DailyRecord, EventRecord

#: Made once: ``json.dumps`` with options builds an encoder per call, which cost as much as the encoding of
#: the small values of a history record.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    return _ENCODER.encode(value)


def render_record(record: DailyRecord | EventRecord) -> list[str]:
    """One line per behaviour, one line for a day's dialogue; event-shape records give one line."""
    if isinstance(record, EventRecord):
        return [f"- [{record.timestamp}] [{record.type}] {_compact(record.content)}"]
    lines = [f"- [{record.date}] [{event.behavior_type}] {_compact(event.content)}" for event in record.behavior]
    if record.dialogue:
        turns = " | ".join(f"{turn.role}: {turn.content}" for turn in record.dialogue)
        lines.append(f"- [{record.date}] [dialogue] {turns}")
    return lines


def render_records(records: list[DailyRecord | EventRecord]) -> str:
    return "\n".join(line for record in records for line in render_record(record))


def render_preferences(preferences: dict[str, Any] | None) -> str:
    """Render ground-truth ``personalized_preference_memory`` (its ``current`` part) as tag lines."""
    if not preferences:
        return ""
    current = preferences.get("current", preferences)
    if not isinstance(current, dict):
        return f"### User preference tags\n  - {_compact(current)}"
    lines = ["### User preference tags"]
    for category, tags in current.items():
        lines.append(f"[{category}]")
        for tag in tags if isinstance(tags, list) else [tags]:
            lines.append(f"  - {_compact(tag)}")
    return "\n".join(lines)
