"""No module outside ``memory/`` names a built-in backend: it asks the backends' specs (issue 22).

A string literal equal to a backend name (or an official alias) outside ``pytest_vitabench/memory/`` is a
check by name that a new backend would have to be added to; docstrings are prose and do not count. ``none``
and ``null`` are ordinary words in option values and messages, so they count only where they stand for a
backend: a ``memory`` keyword argument, or a comparison or membership test against something named after
the memory.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_vitabench
from pytest_vitabench.memory.registry import BUILTIN_SPECS
from pytest_vitabench.options.values import ALIASES

PACKAGE = Path(pytest_vitabench.__file__).parent
#: Names that are ordinary words too.
WORDS = {"none", "null"}
#: Where a name stays a literal, and why.
ALLOWED = {
    # The --vita-memory default: the option specs sit below every feature module and import only the
    # standard library (issue 22 point 3), so they cannot ask the registry for it.
    ("options/parts.py", "full_context"),
    # --vita-deviation rag=official: the key of a switch, not a backend looked up by name.
    ("options/parts.py", "rag"),
    # The official names --vita-memory accepts (null, rewrite): parsed with the option, below the registry for
    # the same reason; tests/memory pins them to the aliases the specs declare.
    ("options/values.py", "agentic"),
    ("options/values.py", "rewrite"),
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _names_memory(node: ast.AST) -> bool:
    return any(("memory" in n.id if isinstance(n, ast.Name) else "memory" in n.attr)
               for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute)))


def _stands_for_a_backend(constant: ast.Constant, parents: dict[int, ast.AST]) -> bool:
    if constant.value not in WORDS:
        return True
    child: ast.AST = constant
    parent = parents.get(id(constant))
    while isinstance(parent, (ast.List, ast.Tuple, ast.Set)):
        child, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.keyword):
        return parent.arg is not None and "memory" in parent.arg
    if isinstance(parent, ast.Compare):
        return any(_names_memory(side) for side in [parent.left, *parent.comparators] if side is not child)
    if isinstance(parent, ast.Dict):
        keys = [k for k, v in zip(parent.keys, parent.values, strict=True) if v is child]
        return any(isinstance(k, ast.Constant) and k.value == "memory" for k in keys)
    return False


def backend_literals(root: Path = PACKAGE) -> list[str]:
    """``path:line: 'name'`` of each literal backend name outside ``memory/``."""
    names = set(BUILTIN_SPECS) | set(ALIASES)
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] == "memory":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings
                    and (relative.as_posix(), node.value) not in ALLOWED and _stands_for_a_backend(node, parents)):
                found.append(f"{relative.as_posix()}:{node.lineno}: {node.value!r}")
    return found


def test_no_module_outside_memory_names_a_backend():
    assert backend_literals() == [], "ask the backends' MemorySpec (pytest_vitabench/memory/spec.py) instead"


def test_the_check_finds_a_name_and_a_word_that_stands_for_one(tmp_path):
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "x.py").write_text('NAME = "rag"\n')
    (tmp_path / "a.py").write_text('"""Docs may say rag."""\n'
                                   'def f(c):\n'
                                   '    """And agentic."""\n'
                                   '    return "agentic" in c.memory\n')
    (tmp_path / "b.py").write_text('def g(run, memory_name):\n'
                                   '    run(memory="none")\n'
                                   '    return memory_name == "null" or "none" == "none"\n')
    (tmp_path / "c.py").write_text('X = {"memory": ["none"], "model": "none"}\nY = ("", "none", "off")\n')
    assert backend_literals(tmp_path) == ["a.py:4: 'agentic'", "b.py:2: 'none'", "b.py:3: 'null'",
                                          "c.py:1: 'none'"]


def test_the_official_aliases_are_the_ones_the_specs_declare():
    # The option parser keeps its own table (it sits below the registry): it must not drift from the specs.
    assert ALIASES == {alias: spec.name for spec in BUILTIN_SPECS.values() for alias in spec.aliases}
