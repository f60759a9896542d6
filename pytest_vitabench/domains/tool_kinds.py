"""The declared kind of every built-in tool by name, for code that reads a trajectory without its environment
(a saved report, a user simulator given no tool list)."""

from __future__ import annotations

from . import DOMAINS, domain_spec
from .base import ToolKind
from .declare import ToolSet
from .shared_tools import SharedTools


def declared_kinds() -> dict[str, ToolKind]:
    """``{tool name: kind}`` of the shared tools and every domain's tools, as their ``@tool`` declarations say."""
    tool_sets: list[type[ToolSet]] = [SharedTools, *(domain_spec(name).tools for name in DOMAINS)]
    return {spec.name: spec.kind for tools in tool_sets for spec in tools.specs()}
