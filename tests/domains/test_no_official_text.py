"""The project carries none of the official harness's messages: the official tool results read them at run time.

Reads every string the official source (``../shared/official``) writes, and fails if one of 14 characters or more
with a space in it appears in our official tool code: the tool modules of ``official/`` and the
official branches (``if ... official_results``) of the other domain modules. The official records' string forms
(their ``__str__``/``__repr__``) are a format we re-implement, not a message, and may stay.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from _side_by_side import OFFICIAL_SOURCE

from pytest_vitabench.domains import base
from pytest_vitabench.official import behaviour

DOMAINS_DIR = Path(base.__file__).parent
OFFICIAL_DIR = Path(behaviour.__file__).parent
#: The modules of ``official/`` that re-implement the official tools.
OFFICIAL_TOOL_MODULES = ("delivery.py", "instore.py", "ota.py", "shared_tools.py", "record_text.py", "tool_answers.py")
#: Strings shorter than this, or without a space, are words and separators any code may share.
MIN_LENGTH = 14


def _strings(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
        elif isinstance(node, ast.JoinedStr):
            found.update(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def official_messages(package: Path) -> set[str]:
    """The official strings that could be a message: long enough, with a space, outside the record formats."""
    strings: set[str] = set()
    formats: set[str] = set()
    for path in package.rglob("*.py"):
        if "tools_schema" in path.name:
            continue  # the tool descriptions: read by official_tools.py, checked by its own tests
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings |= _strings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in ("__str__", "__repr__"):
                formats |= _strings(node)
    return {s for s in strings - formats if len(s) >= MIN_LENGTH and " " in s}


def official_code() -> dict[str, set[str]]:
    """The strings of our official tool code, by file: the official modules whole (docstrings included), the
    official branches of the others."""
    code = {f"official/{name}": _strings(ast.parse((OFFICIAL_DIR / name).read_text(encoding="utf-8")))
            for name in OFFICIAL_TOOL_MODULES}
    for path in sorted(DOMAINS_DIR.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        name = str(path.relative_to(DOMAINS_DIR))
        branches = [statement for node in ast.walk(tree) if isinstance(node, ast.If)
                    and "official_results" in ast.unparse(node.test) for statement in node.body]
        if branches:
            code[name] = set().union(*(_strings(statement) for statement in branches))
    return code


def copied(messages: set[str], strings: set[str]) -> list[str]:
    return sorted(m for m in messages if any(m in s for s in strings))


@pytest.fixture(scope="module")
def messages() -> set[str]:
    if not OFFICIAL_SOURCE.is_dir():
        pytest.skip(f"the official harness is not at {OFFICIAL_SOURCE} (needs ../shared beside the clone)")
    found = official_messages(OFFICIAL_SOURCE / "src" / "vita")
    assert len(found) > 100  # the reader sees the official tools' messages at all
    return found


def test_no_official_message_is_in_our_official_tool_code(messages):
    code = official_code()
    # the scan covers every official module and branch
    assert {*(f"official/{name}" for name in OFFICIAL_TOOL_MODULES), "ota/tools.py"} <= set(code)
    hits = {name: copied(messages, strings) for name, strings in code.items()}
    assert not {name: found for name, found in hits.items() if found}


def test_the_guard_sees_a_copied_message(messages):
    # the guard is only as good as its reading: a message pasted into our code, whole or inside a sentence, is found
    sample = sorted(messages)[0]
    pasted = ast.parse(f"def tool():\n    return f'{{x}}: ' + {sample!r} + ' (ours)'")
    assert copied(messages, _strings(pasted)) == [sample]
    assert copied(messages, official_code()["ota/tools.py"]) == []
