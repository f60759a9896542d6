"""What every domain environment offers the episode: tool schemas, tool calls, and its records.

Tool results are built from the declared fields of each entity (an allow-list), so hidden fields in the suite
data (``*_type`` markers, ``distraction_reason``, ...) never reach the agent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from ..options.values import TOOL_CHECKS
from .arguments import ArgumentValidator, lax_arguments
from .fuzzy import fuzzy_rank, official_rank

#: ``create`` tools make an order, booking or reservation; ``write`` tools change one (pay, modify, cancel).
ToolKind = Literal["read", "write", "create", "generic"]
#: The kinds of the tools that change state.
WRITE_KINDS: frozenset[ToolKind] = frozenset({"write", "create"})
#: Names of the tool checks we add over VitaBench 2.0's tools (declared, with what each refuses, in
#: :data:`pytest_vitabench.options.values.TOOL_CHECKS`).
ALL_CHECKS = tuple(TOOL_CHECKS)


@dataclass(frozen=True)
class ToolRules:
    """How the domain tools search and answer (``--vita-deviation search``, ``--vita-deviation tool-results``).

    Attributes:
        official_search: Rank by the processed partial ratio of keywords joined with no separator, ties in the
            database's order (:func:`~pytest_vitabench.domains.fuzzy.official_rank`), and filter cities and
            addresses at a rounded raw partial ratio of 40 (:func:`~pytest_vitabench.domains.fuzzy.official_match`).
        official_answers: The tools answer in the records' string forms with VitaBench 2.0's own checks, as a
            :class:`ToolAnswers` built from the user's copy of its source says (when the run has one).
    """

    official_search: bool = False
    official_answers: bool = False


class ToolAnswers(Protocol):
    """How the tools answer when they answer as another harness's tools do (the harness package builds one from
    the user's copy)."""

    def say(self, key: Hashable, *values: Any) -> str:
        """The message ``key`` with ``values`` filled in."""
        ...

    def behaviour_for(self, tool_set: type) -> type | None:
        """The class whose methods answer for the tools of ``tool_set`` (built over the environment), if any."""
        ...


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
        kind: ``create`` and ``write`` tools change state (:data:`WRITE_KINDS`); the outcome judge looks at
            the ``create`` ones.
        validator: Checks the arguments of each call; declared tools share their class's, others get
            their own on first call.
        official_name: ``Class.method`` of VitaBench 2.0's function behind the tool, or ``None`` (a memory
            tool, a user's own): how the :class:`ToolAnswers` word a call that does not fit.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]
    kind: ToolKind = "read"
    validator: ArgumentValidator | None = field(default=None, repr=False, compare=False)
    official_name: str | None = None

    def arguments_validator(self) -> ArgumentValidator:
        """The validator of this tool's arguments."""
        if self.validator is None:
            self.validator = ArgumentValidator(self.parameters)
        return self.validator

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


#: Made once: ``json.dumps`` with options builds an encoder per call (a tool call's result is small).
_RESULT_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


def to_text(value: Any) -> str:
    """Render a tool's return value as the text the agent reads."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return _RESULT_ENCODER.encode(value)


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
    #: Checks we add over VitaBench 2.0's tools that are in force (``--vita-deviation tool-checks``); the tools read
    #: this, never a global, so one process can run environments of both profiles.
    checks: frozenset[str] = field(default_factory=lambda: frozenset(ALL_CHECKS))

    #: Whether the search tools rank, join keywords and filter cities as :attr:`ToolRules.official_search` says.
    official_search: bool = False
    #: How the tools answer in VitaBench 2.0's way (their records' string forms, their checks); ``None``: ours.
    answers: ToolAnswers | None = None

    @property
    def official_results(self) -> bool:
        """Whether the tools answer through :attr:`answers`."""
        return self.answers is not None

    def say(self, key: Hashable, *values: Any) -> str:
        """The tool message ``key`` of :attr:`answers` with ``values`` (those answers never run without them).

        Raises:
            RuntimeError: The environment was built without answers.
        """
        if self.answers is None:
            raise RuntimeError("answering as VitaBench 2.0's tools needs their messages: build the "
                               "environment with answers=")
        return self.answers.say(key, *values)

    def rank(self, keywords: Any, candidates: list[tuple[str, str, Any]]) -> list[Any]:
        """The candidates ranked by the search style in force; ``(id, text, item)`` triples."""
        return (official_rank if self.official_search else fuzzy_rank)(keywords, candidates)

    def checking(self, name: str) -> bool:
        """Whether the added tool check ``name`` is in force."""
        return name in self.checks

    def add_tools(self, tools: list[Tool]) -> None:
        for tool in tools:
            self.tools[tool.name] = tool

    def close(self) -> None:
        """Drop the tools once the episode is judged.

        A declared tool is a method bound to a tool set that holds this environment: a reference cycle, so
        without this an episode's database (thousands of objects on the paper suite) outlives its item until
        a cyclic collection finds it. The database itself stays readable.
        """
        self.tools.clear()

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The OpenAI function schemas of the tools, in order.

        Each ``parameters`` object is shared by every episode of the process (derived once per tool
        class): treat it as read-only, and copy it before changing it.
        """
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
        if self.official_results and isinstance(arguments, dict):
            return self._dispatch_officially(tool, arguments)
        typed = self.checking("argument_types")
        validator = tool.arguments_validator()
        if not typed and isinstance(arguments, dict):
            arguments = lax_arguments(validator.properties, arguments)
        problem = validator.problem(arguments, types=typed)
        if problem:
            return ToolResult(content=f"Error: {problem}", error=True)
        try:
            return ToolResult(content=to_text(tool.fn(**arguments)))
        except ToolError as exc:
            return ToolResult(content=f"Error: {exc}", error=True)
        except (TypeError, ValueError, KeyError) as exc:
            return ToolResult(content=f"Error: {type(exc).__name__}: {exc}", error=True)

    def _dispatch_officially(self, tool: Tool, arguments: dict[str, Any]) -> ToolResult:
        """A call as VitaBench 2.0's environment makes it: the arguments go to the tool as the model sent them
        (no conversion), a call the tool's signature does not fit fails with Python's own words, and any
        exception reads ``Error: <its message>``."""
        validator = tool.arguments_validator()
        problem = python_call_problem(tool.official_name, validator.properties, validator.required,
                                      arguments)
        if problem:
            return ToolResult(content=f"Error: {problem}", error=True)
        try:
            return ToolResult(content=to_text(tool.fn(**arguments)))
        except (ToolError, TypeError, ValueError, KeyError, AttributeError) as exc:
            return ToolResult(content=f"Error: {exc}", error=True)

    def records(self) -> list[dict[str, Any]]:
        """Every order, reservation and booking as a flat view (fields in ``suite.checks.RECORD_FIELDS``)
        plus ``new``: whether the agent created it during this episode."""
        raise NotImplementedError

    def tool_kind(self, name: str) -> ToolKind | None:
        tool = self.tools.get(name)
        return tool.kind if tool else None


def python_call_problem(qualname: str | None, properties: dict[str, Any], required: tuple[str, ...],
                        arguments: dict[str, Any]) -> str | None:
    """What Python says when ``arguments`` do not fit a function's signature, or ``None``.

    Unexpected keywords first, then the missing ones in signature order, worded as ``TypeError`` words them.
    """
    name = f"{qualname}()" if qualname else "the tool"
    unexpected = next((key for key in arguments if key not in properties), None)
    if unexpected is not None:
        return f"{name} got an unexpected keyword argument {unexpected!r}"
    missing = [key for key in required if key not in arguments]
    if not missing:
        return None
    quoted = [repr(key) for key in missing]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    plural = "argument" if len(missing) == 1 else "arguments"
    return f"{name} missing {len(missing)} required positional {plural}: {listed}"
