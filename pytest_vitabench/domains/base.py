"""What every domain environment offers the episode: tool schemas, tool calls, and its records.

A domain (``delivery``, ``instore``, ``ota``) subclasses :class:`Environment`, registers its tools
(see :class:`Tool`) and implements :meth:`Environment.records`. Tool results are JSON text built from
an explicit allow-list of visible fields per entity, so hidden fields in the suite data (``*_type``
markers, ``distraction_reason``, ``category``, ...) can never reach the agent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

ToolKind = Literal["read", "write", "generic"]
#: Names of the tool checks we add over the official tools (kept equal to ``profile.TOOL_CHECKS``).
ALL_CHECKS = ("stock", "past_dates", "single_store", "attributes", "argument_types", "reservation")


class ToolError(Exception):
    """Raised by a tool for a refused or invalid call; its message goes back to the agent."""


class ToolResult(BaseModel):
    content: str
    error: bool = False


@dataclass
class Tool:
    """A callable the agent may use.

    Attributes:
        name: The function name the model sees.
        description: What it does, its preconditions and what it returns (English).
        parameters: The JSON schema of the arguments; every property has a description.
        fn: Called with the arguments as keyword arguments; returns any JSON-serialisable value or a
            string. Raise :class:`ToolError` for a refused call.
        kind: ``write`` tools change state (the outcome judge looks at them).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]
    kind: ToolKind = "read"

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def to_text(value: Any) -> str:
    """Render a tool's return value as the text the agent reads."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return json.dumps(value, ensure_ascii=False, default=str)


@dataclass
class Environment:
    """One subtask's world: a fresh copy of the domain database plus its tools.

    Subclasses fill ``tools`` in ``__post_init__`` and implement :meth:`records`.
    """

    domain: str
    time: str
    user_id: str
    tools: dict[str, Tool] = field(default_factory=dict)
    tool_errors: int = 0
    #: Checks we add over the official tools that are in force (``--vita-tool-checks``); the tools read
    #: this, never a global, so one process can run environments of both profiles.
    checks: frozenset[str] = field(default_factory=lambda: frozenset(ALL_CHECKS))

    def checking(self, name: str) -> bool:
        """Whether the added tool check ``name`` is in force."""
        return name in self.checks

    def add_tools(self, tools: list[Tool]) -> None:
        for tool in tools:
            self.tools[tool.name] = tool

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self.tools.values()]

    def call(self, name: str, arguments: dict[str, Any] | str) -> ToolResult:
        """Run one tool call; every failure becomes an error result (and is counted), never a crash."""
        result = self._dispatch(name, arguments)
        if result.error:
            self.tool_errors += 1
        return result

    def _dispatch(self, name: str, arguments: dict[str, Any] | str) -> ToolResult:
        tool = self.tools.get(name)
        if tool is None:
            return ToolResult(content=f"Error: unknown tool {name!r}", error=True)
        if isinstance(arguments, str):
            return ToolResult(content=f"Error: arguments are not valid JSON: {arguments[:200]}", error=True)
        typed = self.checking("argument_types")
        if not typed:
            arguments = lax_arguments(tool.parameters, arguments)
        problem = check_arguments(tool.parameters, arguments, types=typed)
        if problem:
            return ToolResult(content=f"Error: {problem}", error=True)
        try:
            return ToolResult(content=to_text(tool.fn(**arguments)))
        except ToolError as exc:
            return ToolResult(content=f"Error: {exc}", error=True)
        except (TypeError, ValueError, KeyError) as exc:
            return ToolResult(content=f"Error: {type(exc).__name__}: {exc}", error=True)

    def records(self) -> list[dict[str, Any]]:
        """Every order, reservation and booking as a flat view (fields in ``suite.checks.RECORD_FIELDS``)
        plus ``new``: whether the agent created it during this episode."""
        raise NotImplementedError

    def tool_kind(self, name: str) -> ToolKind | None:
        tool = self.tools.get(name)
        return tool.kind if tool else None


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
}


def check_arguments(schema: dict[str, Any], arguments: dict[str, Any], *, types: bool = True) -> str | None:
    """A small JSON-schema check: required keys present, no unknown keys, top-level types right.

    Missing and unknown arguments are refused in both profiles (the official tools are Python functions
    called with the model's arguments, which raise for those too); ``types=False`` leaves types unchecked,
    as the official tools do.
    """
    properties: dict[str, Any] = schema.get("properties", {})
    missing = [key for key in schema.get("required", []) if key not in arguments]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    unknown = [key for key in arguments if key not in properties]
    if unknown:
        return f"unknown argument(s): {', '.join(unknown)}; expected: {', '.join(properties)}"
    for key, value in arguments.items() if types else ():
        expected = properties[key].get("type")
        if value is None or expected is None:
            continue
        type_names = expected if isinstance(expected, list) else [expected]
        python_types = tuple(t for name in type_names for t in _flatten(_JSON_TYPES.get(name, object)))
        if isinstance(value, bool) and bool not in python_types:
            return f"argument {key!r} must be {expected}, got a boolean"
        if not isinstance(value, python_types):
            return f"argument {key!r} must be {expected}, got {type(value).__name__}"
    return None


def lax_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Numeric strings made numbers where the schema asks for a number (also inside arrays), as the official
    tools' pydantic models accept them; nothing else changes (``--vita-tool-checks`` without argument_types)."""
    properties: dict[str, Any] = schema.get("properties", {})
    return {key: _lax(properties.get(key, {}), value) for key, value in arguments.items()}


def _lax(spec: dict[str, Any], value: Any) -> Any:
    kind = spec.get("type")
    if kind == "array" and isinstance(value, list):
        return [_lax(spec.get("items") or {}, item) for item in value]
    if kind in ("integer", "number") and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return value
        return int(number) if kind == "integer" and number.is_integer() else number
    return value


def _flatten(value: type | tuple[type, ...]) -> tuple[type, ...]:
    return value if isinstance(value, tuple) else (value,)
