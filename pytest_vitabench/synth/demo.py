"""The demo suite: the curated spec ``specs/demo.json`` expanded into ``suites/demo/tasks.json``.

The committed file is indented (one space) so that a change to the spec shows as a readable diff.
Rewrite it with ``vitabench synth --preset demo`` (or ``python -m pytest_vitabench.synth.demo``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .curated import expand
from .generator import write
from .rubrics import ASK_COUNT_OR_TIME
from .spec import CuratedSpec, load_spec

__all__ = ["ASK_COUNT_OR_TIME", "DEFAULT_PATH", "SPEC_PATH", "build_demo_suite", "demo_spec", "main"]

SPEC_PATH = Path(__file__).resolve().parent / "specs" / "demo.json"
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "suites" / "demo" / "tasks.json"
#: The committed file's indentation.
INDENT = 1


def demo_spec() -> CuratedSpec:
    """The demo suite's spec, validated."""
    return load_spec(SPEC_PATH)


def build_demo_suite() -> list[dict[str, Any]]:
    """The demo suite: a list of users in the official ``tasks.json`` format."""
    return expand(demo_spec())


def main(path: str | Path | None = None) -> Path:
    """Write the demo suite (default ``suites/demo/tasks.json`` in the source checkout)."""
    return write(build_demo_suite(), path or DEFAULT_PATH, indent=INDENT)


if __name__ == "__main__":
    print(main())
