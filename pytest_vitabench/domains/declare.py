"""Declaring tools: methods marked with :func:`tool` on a :class:`ToolSet` subclass (see docs/extending.md).

A tool's docstring is the description the agent reads, its typed signature its parameters; each parameter's
description (and extra JSON-schema keys such as ``enum``) rides on its ``Annotated[..., Arg(...)]`` annotation.
When the environment answers as another harness's tools (:class:`~.base.ToolAnswers`), every tool whose
method the answers' class for this tool set also has answers from it.

Schemas and argument validators are built once per class; binding to an environment makes only the callables.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Union, get_args, get_origin

from .arguments import ArgumentValidator
from .base import Tool, ToolKind

if TYPE_CHECKING:
    from .environment import DomainEnvironment

_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object"}
#: The name of the parameter a family of tools (``each=``) receives its member in.
FAMILY_PARAMETER = "kind"


class Arg:
    """A tool parameter's description, and extra JSON-schema keys the agent is shown (``enum``, ``minimum``).

    Extra keys are documentation for the model: only the JSON type is checked (see ``arguments.py``).
    """

    def __init__(self, description: str, **extra: Any) -> None:
        self.description = description
        self.extra = extra


@dataclass(frozen=True)
class _Declaration:
    kind: ToolKind
    name: str | None
    each: tuple[str, ...] | None


def tool(
    kind: ToolKind = "read", *, name: str | None = None, each: tuple[str, ...] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a :class:`ToolSet` method as a tool.

    Args:
        kind: ``read``, ``create`` (makes an order, booking or reservation; the outcome judge looks at
            these), ``write`` (changes one) or ``generic``.
        name: The tool's name, default the method's; with ``each``, a template with ``{kind}``.
        each: Declare one tool per value, passed as the method's ``kind`` argument.
    """

    def mark(method: Callable[..., Any]) -> Callable[..., Any]:
        method._vita_tool = _Declaration(kind, name, each)  # type: ignore[attr-defined]
        return method

    return mark


@dataclass(frozen=True)
class ToolSpec:
    """One declared tool, derived once per class: what the agent is shown and how its calls are checked."""

    name: str
    description: str
    parameters: dict[str, Any]
    kind: ToolKind
    method: str
    member: str | None
    validator: ArgumentValidator
    #: The method's signature without ``self``: how an answering counterpart gets its arguments in order.
    signature: inspect.Signature


class ToolSet:
    """A group of tools bound to one environment; subclass it and declare methods with :func:`tool`.

    Attributes:
        env: The environment the tools act on.
        db: Its database (one episode's own); a subclass declares the type of its domain's.
        official_class: The reference harness's class whose methods these tools are: a call whose arguments do not
            fit is refused in Python's words, naming ``official_class.tool``.
    """

    _specs: ClassVar[tuple[ToolSpec, ...] | None] = None
    official_class: ClassVar[str | None] = None

    db: Any

    def __init__(self, env: DomainEnvironment) -> None:
        self.env = env
        self.db = env.db

    @cached_property
    def answering(self) -> Any:
        """The answering behaviour over this set's environment, when its tools answer through ``env.answers``."""
        answers = self.env.answers
        behaviour = answers.behaviour_for(type(self)) if answers is not None else None
        if behaviour is None:
            raise TypeError(f"no answering behaviour for {type(self).__name__}")
        return behaviour(self.env)

    @classmethod
    def specs(cls) -> tuple[ToolSpec, ...]:
        """The class's tools in declaration order (inherited first); derived on first use, then reused."""
        if "_specs" not in cls.__dict__ or cls._specs is None:
            cls._specs = tuple(_derive(cls))
        return cls._specs

    @classmethod
    def tool_names(cls) -> tuple[str, ...]:
        """The names of the tools the class declares."""
        return tuple(spec.name for spec in cls.specs())

    def tools(self) -> list[Tool]:
        """The tools bound to this set's environment (to the answering behaviour's, where it has the method)."""
        answers = self.env.answers
        answering = self.answering if answers is not None and answers.behaviour_for(type(self)) else None
        out = []
        for spec in self.specs():
            method = getattr(self, spec.method)
            if answering is not None and hasattr(answering, spec.method):
                method = partial(_in_order, getattr(answering, spec.method), spec.signature)
            fn = partial(method, spec.member) if spec.member is not None else method
            qualname = f"{self.official_class}.{spec.name}" if self.official_class else None
            out.append(Tool(spec.name, spec.description, spec.parameters, fn, spec.kind, validator=spec.validator,
                            official_name=qualname))
        return out


def _in_order(method: Callable[..., Any], signature: inspect.Signature, *args: Any, **kwargs: Any) -> Any:
    # The answering methods take every argument positionally, defaults filled in as the tool declares them.
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return method(*bound.args)


def _derive(cls: type[ToolSet]) -> list[ToolSpec]:
    methods: dict[str, Callable[..., Any]] = {}
    for klass in reversed(cls.__mro__):
        for attr, value in vars(klass).items():
            if hasattr(value, "_vita_tool"):
                methods[attr] = value
    specs = []
    for attr, method in methods.items():
        declaration: _Declaration = method._vita_tool  # type: ignore[attr-defined]
        parameters = parameters_schema(method, family=declaration.each is not None)
        validator = ArgumentValidator(parameters)
        signature = inspect.signature(method)
        signature = signature.replace(parameters=list(signature.parameters.values())[1:])
        text = " ".join((inspect.getdoc(method) or "").split())
        if not text:
            raise TypeError(f"tool {cls.__name__}.{attr} has no docstring (its description for the agent)")
        for member in declaration.each or (None,):
            name = declaration.name or attr
            specs.append(ToolSpec(
                name=name.format(kind=member) if member is not None else name,
                description=text.format(kind=member) if member is not None else text,
                parameters=parameters, kind=declaration.kind, method=attr, member=member, validator=validator,
                signature=signature,
            ))
    return specs


def parameters_schema(method: Callable[..., Any], *, family: bool = False) -> dict[str, Any]:
    """The JSON schema of a tool method's parameters (``self`` and a family's ``kind`` left out).

    Raises:
        TypeError: A parameter without an :class:`Arg` description, or of a type JSON cannot carry.
    """
    # eval_str resolves the module's postponed annotations without typing's recursive re-checking.
    hints = inspect.get_annotations(method, eval_str=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for position, param in enumerate(inspect.signature(method).parameters.values()):
        if position == 0 or (family and param.name == FAMILY_PARAMETER):
            continue
        properties[param.name] = _property(method, param.name, hints.get(param.name))
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    return {"type": "object", "properties": properties, "required": required}


def _property(method: Callable[..., Any], name: str, annotation: Any) -> dict[str, Any]:
    where = f"{getattr(method, '__qualname__', method)}({name})"
    if get_origin(annotation) is not Annotated:
        raise TypeError(f"{where}: annotate the parameter as Annotated[type, Arg('description')]")
    base, *metadata = get_args(annotation)
    described = next((m for m in metadata if isinstance(m, Arg)), None)
    if described is None:
        raise TypeError(f"{where}: its Annotated type carries no Arg('description')")
    return {**_json_type(_without_none(base), where), "description": described.description, **described.extra}


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def _json_type(annotation: Any, where: str) -> dict[str, Any]:
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    if get_origin(annotation) is list:
        (item,) = get_args(annotation) or (Any,)
        return {"type": "array", "items": _json_type(item, where)} if item is not Any else {"type": "array"}
    raise TypeError(f"{where}: {annotation!r} has no JSON-schema type")
