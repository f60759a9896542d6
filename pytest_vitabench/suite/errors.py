"""The error every suite reader raises, in a module of its own so that the loader, the integrity checks
and the index can all raise it without importing one another in a circle."""

from __future__ import annotations

import json
from pathlib import Path


def json_problem(exc: json.JSONDecodeError) -> str:
    """A whole sentence for a JSON syntax error: its ``msg`` often ends in "at", the position left to the caller
    ("Unterminated string starting at"), so the line and column complete it."""
    msg = exc.msg[:1].lower() + exc.msg[1:]
    where = f"line {exc.lineno} column {exc.colno}"
    return f"{msg} {where}" if msg.endswith(" at") else f"{msg} at {where}"


class SuiteError(Exception):
    """A problem in a suite file, located by a JSON path such as ``[3].subtasks[7].environment.time``."""

    def __init__(self, path: str | Path, problems: list[tuple[str, str]]):
        self.path = str(path)
        self.problems = problems
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.path}: invalid VitaBench suite"]
        lines += [f"  at {where or '<root>'}: {problem}" for where, problem in self.problems]
        return "\n".join(lines)
