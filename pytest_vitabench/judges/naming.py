"""Readable ids in verdict reasons: ``S1000030402`` becomes ``S1000030402 (Green Bowl)``.

The names come from the subtask's environment, agent-visible label fields only (never ``*_type`` markers or
``distraction_reason``), so a reason never leaks the answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

#: Fields that label an entity, in order of preference (``<kind>_name`` is tried after ``name``).
_LABEL_FIELDS = ("name", "title", "train_number", "flight_number", "room_type", "seat_type")
#: Ids shorter than this are too likely to occur inside other words or numbers.
_MIN_ID_CHARS = 2


def _own_id(entity: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(id field, id)`` of the entity itself (not of its parent, e.g. a product's ``store_id``)."""
    if isinstance(entity.get("product_id"), str):
        return "product_id", entity["product_id"]
    ids = [k for k, v in entity.items() if k.endswith("_id") and isinstance(v, str) and k != "user_id"]
    for key in ids:
        if isinstance(entity.get(key[:-3] + "_name"), str):
            return key, entity[key]
    return (ids[0], entity[ids[0]]) if len(ids) == 1 else None


def _label(entity: Mapping[str, Any], id_field: str) -> str | None:
    for field in (*_LABEL_FIELDS[:1], id_field[:-3] + "_name", *_LABEL_FIELDS[1:]):
        value = entity.get(field)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def entity_names(environment: Mapping[str, Any]) -> dict[str, str]:
    """``{id: readable label}`` for every named entity and product in a subtask environment.

    A product without a name of its own (a train seat, a hotel room) is labelled with its parent's
    label first, e.g. ``G7502 second class``.
    """
    names: dict[str, str] = {}

    def walk(node: Any, parent_label: str | None) -> None:
        if isinstance(node, Mapping):
            own = _own_id(node)
            label = None
            if own is not None:
                label = _label(node, own[0])
                if label is not None and not isinstance(node.get("name"), str) and own[0] == "product_id" \
                        and parent_label:
                    label = f"{parent_label} {label}"
                if label is not None and len(own[1]) >= _MIN_ID_CHARS:
                    names.setdefault(own[1], label)
            for value in node.values():
                if isinstance(value, (Mapping, list)):
                    walk(value, label or parent_label)
        elif isinstance(node, list):
            for value in node:
                walk(value, parent_label)

    walk(environment, None)
    return names


def with_names(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each known id followed by its name in parentheses (once per occurrence)."""
    if not names or not text:
        return text
    ids = sorted((i for i in names if i in text), key=len, reverse=True)
    if not ids:
        return text
    pattern = re.compile(r"(?<![\w])('?)(" + "|".join(map(re.escape, ids)) + r")\1(?![\w])")
    return pattern.sub(lambda m: f"{m.group(0)} ({names[m.group(2)]})", text)
