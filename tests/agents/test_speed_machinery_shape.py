"""The built-in agents, the text layer and the loader keep their speed machinery behind one seam each (issue 22).

What these tests stop from growing back: module-level memos and ``functools`` caches in the offline built-ins
and the suite loader (the agent's one memo is on the agent; the loader's one cache is the suite index), and
write tools told apart by their names instead of by their declared kind.
"""

from __future__ import annotations

import ast
import runpy
import sys
from types import SimpleNamespace

import pytest
from _paths import REPO_ROOT

PACKAGE = REPO_ROOT / "pytest_vitabench"
MODULES = sorted([*(PACKAGE / "agents").glob("*.py"), *(PACKAGE / "text").glob("*.py"),
                  *(PACKAGE / "suite").glob("*.py")])


@pytest.fixture(scope="module")
def house_metrics():
    """The counting functions of ``benchmarks/house_metrics.py`` (its globals, run as a script is)."""
    yield SimpleNamespace(**runpy.run_path(str(REPO_ROOT / "benchmarks" / "house_metrics.py")))
    sys.modules.pop("import_graph", None)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_module_level_memo_or_functools_cache(house_metrics, path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert house_metrics.module_level_state(tree) == []
    assert house_metrics.cache_decorators(tree) == 0


def test_the_builtin_agent_tells_its_writes_by_their_declared_kind():
    source = (PACKAGE / "agents" / "builtin.py").read_text(encoding="utf-8")
    assert "setup.write_tools" in source
    for prefix in ('"create_"', '"pay_"', "startswith(("):
        assert prefix not in source
