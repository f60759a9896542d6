"""Checking a tool call's arguments against the tool's JSON schema, with pydantic.

One :class:`ArgumentValidator` is built per tool declaration (once per class for declared tools, once per
:class:`~pytest_vitabench.domains.base.Tool` otherwise) and checks every call of it. What it checks is what
the agent was promised by the schema, no more: required keys present, no unknown keys, and the top-level
JSON type of each value (``None`` passes, array items and numeric bounds are not checked). Its error texts
are part of what the agent reads, so they are worded here once and pinned by the tests.
"""

from __future__ import annotations

from typing import Any, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
)

#: The Python type pydantic checks (strictly) for each JSON-schema type.
_STRICT_TYPES: dict[str, Any] = {
    "string": StrictStr,
    "integer": StrictInt,
    "number": Union[StrictInt, StrictFloat],  # noqa: UP007 - a runtime union object for create_model
    "boolean": StrictBool,
    "array": list[Any],
    "object": dict[str, Any],
}


def _annotation(spec: dict[str, Any], *, typed: bool) -> Any:
    expected = spec.get("type")
    if not typed or expected is None:
        return Any
    names = expected if isinstance(expected, list) else [expected]
    members = tuple(_STRICT_TYPES.get(name, Any) for name in names)
    if Any in members:
        return Any
    return Union[(*members, None)]  # noqa: UP007 - None passes, as VitaBench 2.0's tools accept it


def _model(schema: dict[str, Any], *, typed: bool) -> type[BaseModel]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    # Field names are positional (f0, f1 ...) and the argument names aliases, so an argument may be called
    # anything (``schema``, ``copy``, ``model_config``) without shadowing a BaseModel attribute.
    fields: dict[str, Any] = {
        f"f{index}": (_annotation(spec, typed=typed), Field(... if name in required else None, alias=name))
        for index, (name, spec) in enumerate(properties.items())
    }
    model: type[BaseModel] = create_model(
        "ToolArguments", __config__=ConfigDict(strict=typed, extra="forbid"), **fields
    )
    return model


class ArgumentValidator:
    """Checks the arguments of one tool; make it once per schema, call :meth:`problem` per call.

    Args:
        schema: The tool's parameters, a JSON-schema object (``properties``, ``required``).
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.properties: dict[str, Any] = dict(schema.get("properties", {}))
        self.required: tuple[str, ...] = tuple(schema.get("required", []))
        # Built on the first call that needs one: most tools are never called in a given process.
        self._models: dict[bool, type[BaseModel]] = {}

    def model(self, *, typed: bool) -> type[BaseModel]:
        """The pydantic model that checks calls (``typed``: with the JSON types), built once."""
        model = self._models.get(typed)
        if model is None:
            model = self._models[typed] = _model(self.schema, typed=typed)
        return model

    def problem(self, arguments: dict[str, Any], *, types: bool = True) -> str | None:
        """What is wrong with ``arguments`` (the text the agent reads after ``Error: ``), or ``None``.

        Missing and unknown arguments are refused in both profiles (VitaBench 2.0's tools are Python
        functions called with the model's arguments, which raise for those too); ``types=False`` leaves
        types unchecked, as VitaBench 2.0's tools do.
        """
        try:
            self.model(typed=types).model_validate(arguments)
        except ValidationError as exc:
            return self._describe(exc, arguments)
        return None

    def _describe(self, exc: ValidationError, arguments: dict[str, Any]) -> str:
        missing: set[str] = set()
        unknown: set[str] = set()
        wrong: set[str] = set()
        for error in exc.errors():
            name = str(error["loc"][0]) if error["loc"] else ""
            {"missing": missing, "extra_forbidden": unknown}.get(error["type"], wrong).add(name)
        if missing:
            return f"missing required argument(s): {', '.join(k for k in self.required if k in missing)}"
        if unknown:
            listed = ", ".join(str(k) for k in arguments if k in unknown)
            return f"unknown argument(s): {listed}; expected: {', '.join(self.properties)}"
        key = next((k for k in arguments if k in wrong), None)  # the first wrong one, in the agent's order
        if key is None:  # not an object at all
            return f"arguments must be a JSON object, got {type(arguments).__name__}"
        return wrong_type_text(key, self.properties[key].get("type"), arguments[key])


def wrong_type_text(key: str, expected: Any, value: Any) -> str:
    """The refusal of a value whose JSON type is not the schema's."""
    allowed = expected if isinstance(expected, list) else [expected]
    if isinstance(value, bool) and "boolean" not in allowed:
        return f"argument {key!r} must be {expected}, got a boolean"
    return f"argument {key!r} must be {expected}, got {type(value).__name__}"


def lax_arguments(properties: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Numeric strings made numbers where the schema asks for a number (also inside arrays), as VitaBench 2.0's
    tools' pydantic models accept them; nothing else changes (``--vita-deviation tool-checks`` without
    argument_types)."""
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
