"""The agent's tools as the official harness offers them: its order, descriptions and parameter schemas.

Re-implements the official schema builder: signatures are read from the user's copy of ``tools.py`` with
:mod:`ast` (annotations interpreted over a fixed set of typing names, never executed), descriptions and
headings from ``tools_schema.py``, and pydantic builds the same JSON schema. Order: the domain's own tools in
their class order, then the shared tools of the base toolkit.
"""

from __future__ import annotations

import ast
import copy
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import create_model

from .source import DESCRIPTION_SUFFIX, OfficialSource, OfficialSourceError, literal_assignment

_TOOLKIT = "environment/toolkit.py"
_TOOLKIT_SCHEMA = "environment/toolkit_schema.py"
_SCHEMA_BUILDER = "utils/schema_utils.py"
_TYPING = {"str": str, "int": int, "float": float, "bool": bool, "dict": dict, "list": list, "tuple": tuple,
           "Any": Any, "Optional": typing.Optional, "List": list, "Dict": dict, "Union": typing.Union,
           "Literal": typing.Literal, "Tuple": tuple, "None": None}


@dataclass(frozen=True)
class _Parameter:
    name: str
    annotation: ast.expr | None
    default: Any  # ``...`` when required


@dataclass(frozen=True)
class _Method:
    name: str
    parameters: tuple[_Parameter, ...]
    module: Path


def official_tool_schemas(source: OfficialSource, domain: str, language: str) -> list[dict[str, Any]]:
    """Every tool of ``domain`` as the official agent receives it, in the official order.

    Raises:
        OfficialSourceError: A file, class or description the builder needs is missing, or an annotation uses
            a type it cannot read (named).
    """
    return list(source.derived(("tool schemas", domain, language), lambda: _schemas(source, domain, language)))


def _schemas(source: OfficialSource, domain: str, language: str) -> tuple[dict[str, Any], ...]:
    methods = _tool_methods(source, source.package_dir / "domains" / domain / "tools.py")
    descriptions = source.tool_descriptions(domain, language)
    shared = source.package_dir / _TOOLKIT_SCHEMA
    shared_descriptions = literal_assignment(shared, f"TOOLKIT_TOOL_DESCRIPTIONS_{DESCRIPTION_SUFFIX[language]}")
    headings = _headings(source)
    out = []
    for method in methods:
        described = descriptions.get(method.name) or shared_descriptions.get(method.name)
        if described is None:
            raise OfficialSourceError(f"{source.package_dir / 'domains' / domain}: no description of tool "
                                      f"{method.name} in tools_schema.py or {_TOOLKIT_SCHEMA}")
        out.append(_schema(source, method, described, headings))
    return tuple(out)


def _headings(source: OfficialSource) -> tuple[str, ...]:
    """The headings the official docstring builder writes: preconditions, postconditions, arguments, returns."""
    node = source.function(_SCHEMA_BUILDER, "generate_tool_docstring")
    texts = [call.args[0].value for call in ast.walk(node) if isinstance(call, ast.Call)
             and isinstance(call.func, ast.Attribute) and call.func.attr == "append" and call.args
             and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str) and call.args[0].value]
    if len(texts) < 4:
        raise OfficialSourceError(f"{source.package_dir / _SCHEMA_BUILDER}: generate_tool_docstring() has no headings")
    return tuple(texts[:4])


def _schema(source: OfficialSource, method: _Method, described: dict[str, Any], headings: tuple[str, ...]
            ) -> dict[str, Any]:
    before, after, args_heading, returns_heading = headings
    arguments = described.get("args") or {}
    schema = copy.deepcopy(_parameters(source, method))
    for name, prop in (schema.get("properties") or {}).items():
        if name in arguments:  # where pydantic puts a Field's description: its keys are sorted
            prop = dict(sorted({**prop, "description": arguments[name]}.items()))
        if "anyOf" in prop:  # an Optional: the first option with a type stands for it, as officially
            chosen = next((option for option in prop["anyOf"] if "type" in option), None)
            prop = {k: v for k, v in prop.items() if k != "anyOf"}
            if chosen is not None:
                prop["type"] = chosen["type"]
                if chosen["type"] == "array" and "items" in chosen:
                    prop["items"] = chosen["items"]
        schema["properties"][name] = prop
    # The generated docstring's first line is the description; what follows up to the arguments (the
    # description's further lines, then both conditions) is its long description.
    first, _, rest = str(described.get("description", "")).partition("\n")
    conditions = f"{before}\n    - {described.get('preconditions')}\n{after}\n    - {described.get('postconditions')}"
    if not arguments:
        # An empty arguments section is no section to the docstring parser: it stays in the long description,
        # and the returns section with it.
        conditions += f"\n\n{args_heading}\n\n{returns_heading}\n    {described.get('returns')}"
    long = f"{rest}\n{conditions}" if rest else conditions
    description = f"{first}\n\n{long.strip()}" if first else method.name
    return {"type": "function", "function": {"name": method.name, "description": description, "parameters": schema}}


def _parameters(source: OfficialSource, method: _Method) -> dict[str, Any]:
    """Pydantic's JSON schema of the method's parameters without their descriptions: the same in both
    languages, so built once per source (a pydantic model per tool was a fifth of an official run's startup)."""

    def build() -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for parameter in method.parameters:
            annotation = Any if parameter.annotation is None else _annotation(source, method.module,
                                                                              parameter.annotation)
            fields[parameter.name] = (annotation, parameter.default)
        return create_model("parameters", **fields).model_json_schema()

    return source.derived(("tool parameters", str(method.module), method.name,
                           tuple(p.name for p in method.parameters)), build)


def _tool_methods(source: OfficialSource, path: Path) -> list[_Method]:
    """The ``@is_tool`` methods of the toolkit class in ``path``, then those of its base classes."""
    for node in source.tree(path).body:
        if isinstance(node, ast.ClassDef) and (methods := _tools_in(node, path)):
            for base in node.bases:
                if isinstance(base, ast.Name):
                    methods += _base_tools(source, base.id)
            return methods
    raise OfficialSourceError(f"{path}: no class with @is_tool methods")


def _base_tools(source: OfficialSource, name: str) -> list[_Method]:
    path = source.package_dir / _TOOLKIT
    for node in source.tree(path).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return _tools_in(node, path)
    return []


def _tools_in(node: ast.ClassDef, path: Path) -> list[_Method]:
    out = []
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and any(_is_tool(d) for d in item.decorator_list):
            args = item.args
            positional = args.posonlyargs + args.args
            defaults = [...] * (len(positional) - len(args.defaults)) + [ast.literal_eval(d) for d in args.defaults]
            parameters = [_Parameter(a.arg, a.annotation, default) for a, default in zip(positional, defaults,
                                                                                           strict=True)]
            keyword = [_Parameter(a.arg, a.annotation, ... if d is None else ast.literal_eval(d))
                       for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
            out.append(_Method(item.name, tuple(p for p in parameters + keyword if p.name != "self"), path))
    return out


def _is_tool(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, ast.Name) and target.id == "is_tool"


def _annotation(source: OfficialSource, module: Path, node: ast.expr) -> Any:
    """The type an annotation names, interpreted over :data:`_TYPING` and the ``Literal`` aliases the
    module defines or imports; nothing is executed."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in _TYPING:
            return _TYPING[node.id]
        return _annotation(*_alias(source, module, node.id))
    if isinstance(node, ast.Subscript):
        base = _annotation(source, module, node.value)
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        args = tuple(_annotation(source, module, element) for element in inner)
        return base[args if len(args) > 1 else args[0]]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return typing.Union[_annotation(source, module, node.left), _annotation(source, module, node.right)]  # noqa: UP007
    raise OfficialSourceError(f"{module}:{getattr(node, 'lineno', '?')}: cannot read the annotation "
                              f"{ast.unparse(node)}")


def _alias(source: OfficialSource, module: Path, name: str) -> tuple[OfficialSource, Path, ast.expr]:
    """Where ``name`` is assigned: in ``module``, or in the module it is imported from."""
    tree = source.tree(module)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return source, module, node.value
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and any(a.name == name for a in node.names):
            parts = node.module.split(".")
            if parts[0] == source.package_dir.name:
                return _alias(source, source.package_dir.joinpath(*parts[1:]).with_suffix(".py"), name)
    raise OfficialSourceError(f"{module}: cannot resolve the type {name}")
