"""The error every suite reader raises, in a module of its own so that the loader, the integrity checks
and the index can all raise it without importing one another in a circle."""

from __future__ import annotations

from pathlib import Path


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
