"""Resolve ``--vita-memory`` names to backend factories: built-ins, ``module:Class``, entry points."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from .base import Memory

#: Official names accepted as aliases (REFERENCE.md §4).
ALIASES = {"null": "none", "rewrite": "agentic"}
BUILTIN = ("none", "groundtruth", "full_context")
PLANNED = ("agentic", "rag")
ENTRY_POINT_GROUP = "vitabench.memory"


def canonical_name(name: str) -> str:
    name = name.strip()
    return ALIASES.get(name, name)


def parse_memory_list(spec: str) -> list[str]:
    """Split ``none,full_context`` into canonical, de-duplicated names (order kept)."""
    names: list[str] = []
    for part in spec.split(","):
        if part.strip():
            name = canonical_name(part)
            if name not in names:
                names.append(name)
    if not names:
        raise ValueError("--vita-memory needs at least one backend name")
    return names


def memory_factory(name: str, options: dict[str, Any] | None = None) -> Callable[[], Memory]:
    """Return a zero-argument factory for the backend ``name``.

    Raises:
        ValueError: Unknown or not-yet-available backend, with the list of known names.
    """
    options = options or {}
    name = canonical_name(name)
    if name == "none":
        from .null import NoMemory

        return NoMemory
    if name == "groundtruth":
        from .groundtruth import GroundTruthMemory

        return GroundTruthMemory
    if name == "full_context":
        from .full_context import DEFAULT_MAX_TOKENS, FullContextMemory

        budget = int(options.get("full_context_max_tokens") or DEFAULT_MAX_TOKENS)
        return lambda: FullContextMemory(max_tokens=budget)
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load memory backend {name!r}: {exc}") from exc
        return _checked(name, cls)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            return _checked(name, ep.load())
    if name in PLANNED:
        raise ValueError(f"memory backend {name!r} is not available yet (it needs the LLM roles); "
                         f"available: {', '.join(BUILTIN)}, module:Class, or a '{ENTRY_POINT_GROUP}' entry point")
    raise ValueError(f"unknown memory backend {name!r}; available: {', '.join(BUILTIN)}, "
                     f"module:Class, or a '{ENTRY_POINT_GROUP}' entry point")


def _checked(name: str, cls: Any) -> Callable[[], Memory]:
    def make() -> Memory:
        memory = cls()
        if not isinstance(memory, Memory):
            raise TypeError(f"memory backend {name!r} must define update(records, context) and read(query)")
        return memory

    return make
