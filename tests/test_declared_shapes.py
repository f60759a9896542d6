"""The house keeps its declared shapes: write tools are known by their declared kind and metrics by
:data:`~pytest_vitabench.formulas.METRICS`, not by lists of names spread over the modules."""

from __future__ import annotations

import ast
from pathlib import Path

from pytest_vitabench.domains.base import WRITE_KINDS
from pytest_vitabench.domains.tool_kinds import declared_kinds
from pytest_vitabench.formulas import METRICS

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_vitabench"
#: Where tool names belong: the tools' own declarations, their official re-implementations, and the official
#: outcome evaluator's own list (``--vita-deviation outcome=official`` decides as the official harness does, by name).
TOOL_NAME_HOMES = ("domains/", "official/delivery.py", "official/instore.py", "official/ota.py",
                   "official/shared_tools.py", "official/outcome.py")
#: Still matching write tools by name: being converted to the declared kinds (delete an entry once it is).
NOT_YET_CONVERTED = ("agents/builtin.py", "suite/answer_key.py")


def _modules() -> list[tuple[str, ast.AST]]:
    return [(path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(PACKAGE.rglob("*.py"))]


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_write_tools_are_asked_for_their_kind_not_listed_by_name():
    writes = {name for name, kind in declared_kinds().items() if kind in WRITE_KINDS}
    listing = {}
    for name, tree in _modules():
        if name.startswith(TOOL_NAME_HOMES) or name in NOT_YET_CONVERTED:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                named = {s for s in _strings(node) if s in writes}
                if len(named) >= 2:
                    listing.setdefault(name, []).append(sorted(named))
    assert listing == {}


def test_metric_names_are_spelled_in_their_declaration_only():
    # a family's name (``pass^`` is also its prefix) is how code picks a metric; its key and title are not
    spelled = ({m.prefix for m in METRICS} | {m.title for m in METRICS}) - {m.name for m in METRICS}
    found = {}
    for name, tree in _modules():
        if name == "formulas.py":  # where METRICS declares them
            continue
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        hits = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                and id(n) not in docstrings and n.value in spelled]
        if hits:
            found[name] = hits
    assert found == {}
