"""The official tools' messages, read from the user's copy of the harness (``--vita-deviation tool-results=official``).

The project ships none of them: each is read from the official function that asserts, returns or raises it,
parsed with :mod:`ast` and never executed; an f-string becomes a template filled with the values our
re-implementation computes. A message is addressed by file, function, the placeholders it must have (in order)
and its ordinal among that function's messages with exactly those placeholders.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .source import DOMAINS, OfficialSource, OfficialSourceError

#: The official files whose functions' messages become tool results (paths under the ``vita`` package).
TOOL_FILES = {**{domain: f"domains/{domain}/tools.py" for domain in DOMAINS}, "shared": "environment/toolkit.py"}


@dataclass(frozen=True)
class Message:
    """One official message as a :meth:`str.format` template: each formatted field numbered in source order,
    with its conversion and spec (``{0!r:>3}``), literal braces doubled.

    Attributes:
        placeholders: The formatted expressions, as the official source writes them.
    """

    template: str
    placeholders: tuple[str, ...]

    def render(self, values: Mapping[str, Any]) -> str:
        """The message with each field's value formatted as the f-string would (conversion, then spec)."""
        return self.template.format(*(values[p] for p in self.placeholders))


@dataclass(frozen=True)
class MessageKey:
    """Where one official message is: file (a key of :data:`TOOL_FILES`), function, placeholders, ordinal.

    Attributes:
        nth: Among the function's messages with exactly these placeholders (in order), which one (from 0).
    """

    file: str
    function: str
    placeholders: tuple[str, ...]
    nth: int = 0


#: Every key declared with :func:`message` (the official tool modules declare theirs when imported).
DECLARED: list[MessageKey] = []


def message(file: str, function: str, *placeholders: str, nth: int = 0) -> MessageKey:
    """Declare the official message of ``function`` in ``file`` with ``placeholders``, checked by
    :meth:`ToolMessages.check` before any item runs."""
    key = MessageKey(file, function, placeholders, nth)
    DECLARED.append(key)
    return key


class ToolMessages:
    """The official tools' messages of one copy of the harness (what an environment under the official tool
    results carries).

    Args:
        source: The user's copy of the harness.
    """

    def __init__(self, source: OfficialSource) -> None:
        self.source = source

    def __call__(self, key: MessageKey, *values: Any) -> str:
        """The message ``key`` with its placeholders filled with ``values`` (in order).

        Raises:
            OfficialSourceError: The function has no such message (the file and the function are named).
        """
        return self.find(key).render(dict(zip(key.placeholders, values, strict=True)))

    def find(self, key: MessageKey) -> Message:
        path = self.source.package_dir / TOOL_FILES[key.file]
        # The messages of each function are derived once per source (a run says some 250 in 74 functions).
        messages = self.source.derived(("messages", path, key.function),
                                       lambda: function_messages(self.source.function(path, key.function)))
        matches = [m for m in messages if m.placeholders == key.placeholders]
        if key.nth >= len(matches):
            shape = ", ".join("{" + p + "}" for p in key.placeholders) or "no placeholder"
            raise OfficialSourceError(f"{path}: {key.function}() has {len(matches)} message(s) with {shape}, "
                                      f"the official tool results need {key.nth + 1}")
        return matches[key.nth]

    def check(self, keys: list[MessageKey]) -> None:
        """Find every one of ``keys``, so that a copy lacking one fails before any item runs.

        Raises:
            OfficialSourceError: Naming the file and the function.
        """
        for key in keys:
            self.find(key)


def function_messages(node: ast.AST) -> tuple[Message, ...]:
    """Every message the function ``node`` asserts, returns or raises, in source order."""
    found: list[ast.expr] = []
    for child in ast.walk(node):
        if isinstance(child, ast.Assert) and child.msg is not None:
            found.append(child.msg)
        elif isinstance(child, ast.Return) and child.value is not None:
            found.extend(_branches(child.value))
        elif isinstance(child, ast.Raise) and isinstance(child.exc, ast.Call):
            found.extend(child.exc.args)
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return tuple(m for m in (_message(n) for n in found) if m is not None)


def _branches(node: ast.expr) -> list[ast.expr]:
    # ``return x if ok else "message"``: both arms may be a message.
    if isinstance(node, ast.IfExp):
        return _branches(node.body) + _branches(node.orelse)
    return [node]


def _message(node: ast.expr) -> Message | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Message(_literal(node.value), ())
    if not isinstance(node, ast.JoinedStr):
        return None
    template = ""
    placeholders: list[str] = []
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            template += _literal(value.value)
        elif isinstance(value, ast.FormattedValue):
            spec = value.format_spec
            if spec is not None and not all(isinstance(v, ast.Constant) for v in spec.values):  # type: ignore[attr-defined]
                return None  # a computed format spec: not a fixed template
            spec_text = "".join(str(v.value) for v in spec.values) if spec is not None else ""  # type: ignore[attr-defined]
            conversion = f"!{chr(value.conversion)}" if value.conversion != -1 else ""
            template += f"{{{len(placeholders)}{conversion}{':' + spec_text if spec_text else ''}}}"
            placeholders.append(ast.unparse(value.value))
    return Message(template, tuple(placeholders))


def _literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")
