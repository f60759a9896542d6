"""What an LLM judge reads: the numbered transcript, its windows (10 messages, overlapping by 2), and the final
records.

Message numbers are 1-based and global (the same message has the same number in every window); a message with
neither text nor tool calls is not shown but keeps its number.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from ..domains.base import Environment
from ..messages import Message
from ..suite.schema import SubTask
from .prompts import ROLE_LABELS, lang

log = logging.getLogger("pytest_vitabench.judges")

WINDOW_SIZE = 10
WINDOW_OVERLAP = 2
#: Fields of a record that say nothing to a judge.
_RECORD_NOISE = ("new",)


def windows(count: int, size: int = WINDOW_SIZE, overlap: int = WINDOW_OVERLAP) -> list[tuple[int, int]]:
    """``(start, end)`` slices of a ``count``-message list, end exclusive.

    >>> windows(11)
    [(0, 10), (8, 11)]
    >>> windows(25)
    [(0, 10), (8, 18), (16, 25)]
    """
    if count <= size:
        return [(0, count)]
    # Each window starts ``size - overlap`` after the last, until one reaches the end.
    return [(start, min(start + size, count)) for start in range(0, count - overlap, size - overlap)]


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def render_call(name: str, arguments: dict[str, Any] | str) -> str:
    """``create_delivery_order(store_id="S2", product_cnts=[1])``; malformed arguments shown as given."""
    if isinstance(arguments, str):
        return f"{name}(<malformed arguments: {arguments[:300]}>)"
    return f"{name}({', '.join(f'{key}={_value(value)}' for key, value in arguments.items())})"


def render_message(number: int, message: Message, language: str = "en") -> str | None:
    """One numbered line (or block), or ``None`` for a message with neither text nor tool calls."""
    labels = ROLE_LABELS[lang(language)]
    text = message.text.strip()
    if message.role == "tool":
        if not text:
            return None
        tool = f" {message.name}" if message.name else ""
        flag = f" ({labels['error']})" if message.error else ""
        return f"[{number}] {labels['tool']}{tool}{flag}: {text}"
    calls = [render_call(call.name, call.arguments) for call in message.tool_calls or []]
    if not text and not calls:
        return None
    line = f"[{number}] {labels[message.role]}: {text}".rstrip()
    if calls:
        line += f" [{labels['calls']}] " + "; ".join(calls)
    return line


def render_messages(messages: list[Message], start: int = 0, end: int | None = None, language: str = "en") -> str:
    """Messages ``start..end`` numbered by their global 1-based position."""
    end = len(messages) if end is None else end
    lines = [render_message(start + offset + 1, message, language)
             for offset, message in enumerate(messages[start:end])]
    return "\n".join(line for line in lines if line is not None)


def _names(environment: Environment, record: dict[str, Any]) -> dict[str, Any]:
    """The entity's name and the ordered products' names, from the agent-visible views."""
    find = getattr(environment, "find_entity", None)
    entity = find(str(record.get("entity_id"))) if callable(find) and record.get("entity_id") else None
    if entity is None:
        return {}
    out: dict[str, Any] = {}
    name = getattr(environment, "entity_name", lambda _id: None)(str(record.get("entity_id")))
    if name:
        out["entity_name"] = name
    wanted = [str(pid) for pid in record.get("product_ids") or []]
    products = {str(getattr(p, "product_id", "")): p for p in getattr(entity, "products", None) or []}
    named = []
    for pid in wanted:
        product = products.get(pid)
        if product is None:
            continue
        view = product.view() if hasattr(product, "view") else {}
        label = view.get("name") or next((view[k] for k in view if k.endswith("_type") and view[k]), None)
        if label:
            named.append(f"{pid}: {label}")
    if named:
        out["products"] = named
    return out


def _clean(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _RECORD_NOISE and v not in (None, "", [])}


def record_facts(environment: Environment, subtask: SubTask | None = None, time: str = "") -> list[dict[str, Any]]:
    """Records created or changed during the episode, as they stand at its end, with names resolved.

    A record the agent created has ``created_in_conversation: true``; a pre-existing record whose fields
    changed (paid, cancelled, modified) has ``false``. Unchanged history is left out: it is noise to a judge.
    """
    try:
        final = environment.records()
    except NotImplementedError:
        return []
    before: dict[Any, dict[str, Any]] = {}
    if subtask is not None and any(not r.get("new") for r in final):
        try:
            from ..domains import build_environment

            fresh = build_environment(subtask.domain, subtask.environment, user_id=environment.user_id,
                                      time=time or environment.time, seed=0)
            before = {(r["record_type"], r.get("record_id")): _clean(r) for r in fresh.records()}
        except Exception as exc:  # facts are a help to the judge; never a reason to fail the judging
            log.debug("could not rebuild the initial records for the judge: %s", exc)
    facts = []
    for record in final:
        key = (record["record_type"], record.get("record_id"))
        cleaned = _clean(record)
        if record.get("new"):
            facts.append({**cleaned, **_names(environment, record), "created_in_conversation": True})
        elif key in before and before[key] != cleaned:
            facts.append({**cleaned, **_names(environment, record), "created_in_conversation": False})
    return facts


def numbered(texts: list[str]) -> str:
    """``1. first`` lines, one per text, numbered from 1 as the judges' replies name them."""
    return "\n".join(f"{i}. {text}" for i, text in enumerate(texts, 1))


def chat(system: str, user: str) -> list[dict[str, Any]]:
    """A judge request: its system prompt and one user message."""
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def render_facts(facts: list[dict[str, Any]]) -> str:
    return "\n".join(f"- {_value(fact)}" for fact in facts)
