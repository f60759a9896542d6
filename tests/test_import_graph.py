"""No import circle inside the package, at module level or package level (``benchmarks/import_graph.py``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from _paths import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "import_graph.py"


@pytest.fixture(scope="module")
def import_graph():
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module  # dataclass-free, but keep the usual import protocol
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("import_graph", None)


def test_no_module_or_package_circle(import_graph):
    figures = import_graph.measure()
    assert figures["module_circles"] == []
    assert figures["package_circles"] == []
    assert figures["modules"] > 100  # the walk found the package


def test_no_circle_even_through_type_checking_imports(import_graph):
    """The type checker sees the imports under ``if TYPE_CHECKING:`` too: a ring there (config <-> llm.settings
    closed one through ten modules) is a design circle all the same."""
    figures = import_graph.measure(type_checking=True)
    assert figures["module_circles"] == []
    assert figures["package_circles"] == []


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pytest_vitabench"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_counts_function_level_imports_and_skips_type_checking(import_graph, tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from .b import g\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n",
        "c.py": "from . import d\n",
        "d.py": "import pytest_vitabench.c\n",
    })
    figures = import_graph.measure(root)
    assert [c["members"] for c in figures["module_circles"]] == [["c", "d"]]


def test_package_level_circle_between_subpackages(import_graph, tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "report/__init__.py": "",
        "report/table.py": "from ..view.page import render\n",
        "view/__init__.py": "",
        "view/page.py": "def render():\n    from ..report import other\n",
        "report/other.py": "",
    })
    figures = import_graph.measure(root)
    assert figures["module_circles"] == []  # no module imports one that imports it back
    assert [c["members"] for c in figures["package_circles"]] == [["report", "view"]]
    assert figures["package_circles"][0]["cycle"] in (["report", "view", "report"], ["view", "report", "view"])


def test_type_checking_imports_close_a_circle_only_when_counted(import_graph, tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\nelse:\n    pass\n",
    })
    assert import_graph.measure(root)["module_circles"] == []
    circles = import_graph.measure(root, type_checking=True)["module_circles"]
    assert [c["members"] for c in circles] == [["a", "b"]]
