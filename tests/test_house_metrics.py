"""``benchmarks/house_metrics.py`` counts what its docstring says, on a small package written here."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from _paths import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "house_metrics.py"


@pytest.fixture(scope="module")
def house_metrics():
    spec = importlib.util.spec_from_file_location("house_metrics", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["house_metrics"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("house_metrics", None)
    sys.modules.pop("import_graph", None)


LONG_BODY = "".join(f"    x{i} = {i}\n" for i in range(85))


def _checkout(tmp_path: Path) -> Path:
    files = {
        "pytest_vitabench/__init__.py": "",
        "pytest_vitabench/a.py": (
            "import functools\nfrom functools import cache, lru_cache\nfrom typing import TYPE_CHECKING\n"
            "from . import b\n"
            "TABLE = {'a': 1}\nREGISTRY = {}\nSEEN = []\n_memo = None\n__all__ = []\n"
            "if TYPE_CHECKING:\n    from .c import C\n"
            "def register(name):\n    REGISTRY[name] = 1\n    SEEN.append(name)\n"
            "def remember():\n    global _memo\n    _memo = 1\n    import json\n    from . import c\n"
            "@cache\ndef one(): ...\n@lru_cache(maxsize=8)\ndef two(): ...\n@functools.lru_cache\ndef three(): ...\n"
            "def long():\n" + LONG_BODY),
        "pytest_vitabench/b.py": "x = 1\n" * 401,
        "pytest_vitabench/c.py": "from . import a\n",
        "README.md": "one\ntwo\nthree\n",
        "docs/index.md": "# home\n",
        "docs/guide/page.md": "# page\n",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_counts_each_figure_as_documented(house_metrics, tmp_path):
    figures = house_metrics.measure(_checkout(tmp_path))
    assert figures["modules"] == 4
    assert figures["modules_over_400_lines"] == ["pytest_vitabench/b.py (401)"]
    assert [entry.split(" ")[1] for entry in figures["functions_over_80_lines"]] == ["long"]
    assert figures["function_local_imports"] == 2
    # TABLE is a constant table; REGISTRY, SEEN and _memo change after import.
    assert figures["module_level_state"] == [f"pytest_vitabench/a.py: {n}" for n in ("REGISTRY", "SEEN", "_memo")]
    assert figures["cache_decorators"] == 3 and figures["modules_with_cache_decorators"] == 1
    # a -> c is function-local (counted) and c -> a closes the circle, seen at module and at package level
    assert figures["circles_without_type_checking"] == {"module": 1, "package": 1}
    assert figures["readme_lines"] == 3 and figures["docs_pages"] == 2


def test_type_checking_imports_are_counted_separately(house_metrics, tmp_path):
    root = tmp_path / "pytest_vitabench"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("from . import b\n")
    (root / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    figures = house_metrics.measure(tmp_path)
    assert figures["circles_without_type_checking"] == {"module": 0, "package": 0}
    assert figures["circles_with_type_checking"]["module"] == 1
    assert figures["readme_lines"] == 0 and figures["docs_pages"] == 0


def test_a_directory_without_the_package_is_refused_by_name(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), "--repo", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode != 0
    assert "no pytest_vitabench/ under" in done.stderr and "--repo" in done.stderr


def test_prints_the_figures_of_this_checkout():
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True)
    assert "lines in pytest_vitabench/:" in done.stdout and "README lines:" in done.stdout
    assert "import circles with TYPE_CHECKING imports:" in done.stdout
