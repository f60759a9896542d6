"""A subtask's ``message_history``: the conversation it starts from, as VitaBench 2.0's orchestrator honours it.

A subtask with a ``message_history`` starts from those messages instead of the greeting and the verbatim
instruction; whoever did not speak last speaks next. Messages come in the tau2 shape or in ours.
"""

from __future__ import annotations

import json
from typing import Any

from ..messages import Message, Role, ToolCall

_ROLES: dict[str, Role] = {"assistant": "assistant", "agent": "assistant", "user": "user", "tool": "tool"}


class HistoryError(ValueError):
    """A ``message_history`` entry that cannot be read."""


def _call(index: int, number: int, raw: Any) -> ToolCall:
    if not isinstance(raw, dict):
        raise HistoryError(f"message_history[{index}].tool_calls[{number}] is not an object")
    function: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else raw
    name = function.get("name")
    if not name:
        raise HistoryError(f"message_history[{index}].tool_calls[{number}] has no name")
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            pass  # kept as the raw string, as a malformed call from a model is
    return ToolCall(id=str(raw.get("id") or f"history-{index}-{number}"), name=str(name),
                    arguments=arguments if isinstance(arguments, (dict, str)) else {})


def seed_messages(history: list[Any] | None) -> list[Message]:
    """The seed conversation as :class:`Message` objects (empty when there is none).

    Raises:
        HistoryError: An entry that is not an object, has an unknown role, or a tool call without a name.
    """
    out: list[Message] = []
    for index, raw in enumerate(history or []):
        if isinstance(raw, Message):
            out.append(raw)
            continue
        if not isinstance(raw, dict):
            raise HistoryError(f"message_history[{index}] is not an object")
        role = _ROLES.get(str(raw.get("role", "")).lower())
        if role is None:
            raise HistoryError(f"message_history[{index}] has role {raw.get('role')!r}; expected assistant, "
                               "user or tool")
        content = raw.get("content")
        if role == "tool":
            out.append(Message(role="tool", content="" if content is None else str(content),
                               tool_call_id=str(raw.get("tool_call_id") or raw.get("id") or ""),
                               name=raw.get("name"), error=bool(raw.get("error", False))))
            continue
        calls = [_call(index, n, c) for n, c in enumerate(raw.get("tool_calls") or [])]
        out.append(Message(role=role, content=None if content is None else str(content), tool_calls=calls or None))
    return out
