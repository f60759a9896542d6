"""The house figures of issue 22 for a checkout: how big the package is and how hard it is to live in.

    python benchmarks/house_metrics.py                       # this checkout
    python benchmarks/house_metrics.py --repo /path/to/main  # another checkout (before/after)
    python benchmarks/house_metrics.py --json

Every figure is read from the source with :mod:`ast` (nothing of the package is imported), so two checkouts
can be compared from one interpreter. What counts:

- *lines*: every line of every ``.py`` file under ``pytest_vitabench/``, blank lines and comments included;
- *functions over 80 lines*: ``def`` / ``async def`` at any depth, from the ``def`` line to the last line
  of the body (decorators not counted);
- *function-local imports*: ``import`` statements inside a function or method body (a deferred import
  couples two modules as much as one at the top, and hides it);
- *module-level mutable state*: names bound at module level that the module itself changes after import:
  rebinds from a function (``global``), assigns or deletes an item of (``NAME[k] = ...``), or calls a
  mutating method on (``append``, ``add``, ``update``, ``setdefault``, ``pop``, ``clear``...). A constant
  table written as a dict is not state; a registry or memo is;
- *@cache / @lru_cache uses*: decorators naming ``cache`` or ``lru_cache`` (bare, called, or as
  ``functools.``...);
- *import circles*: strongly connected components of :mod:`import_graph`'s module graph and of its
  package graphs, without and with the imports under ``if TYPE_CHECKING:``;
- *README lines* and the number of pages under ``docs/``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import import_graph  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
LONG_MODULE = 400
LONG_FUNCTION = 80
_MUTATORS = frozenset({"append", "add", "update", "setdefault", "pop", "popitem", "clear", "extend", "insert",
                       "remove", "discard", "appendleft", "popleft", "move_to_end"})
_CACHE_DECORATORS = frozenset({"cache", "lru_cache"})


def _name(node: ast.expr) -> str:
    """The last part of a (dotted) name, or of the called name: ``functools.lru_cache(8)`` -> ``lru_cache``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def function_local_imports(tree: ast.AST) -> int:
    """Import statements inside function bodies (a nested function's counted once, not per enclosing one)."""
    inside: set[int] = set()
    for function in _functions(tree):
        for node in ast.walk(function):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                inside.add(id(node))
    return len(inside)


def _module_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        names.update(t.id for t in targets if isinstance(t, ast.Name) and t.id != "__all__")
    return names


def _subscripted(node: ast.expr) -> str:
    """``NAME`` of ``NAME[...]`` (nested subscripts too), else ``""``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def module_level_state(tree: ast.Module) -> list[str]:
    """The module-level names the module changes after import (see the module docstring), sorted."""
    names = _module_names(tree)
    changed: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            changed.update(node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            changed.update(_subscripted(t) for t in targets if isinstance(t, ast.Subscript))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _MUTATORS and isinstance(node.func.value, ast.Name)):
            changed.add(node.func.value.id)
    return sorted(names & changed)


def cache_decorators(tree: ast.AST) -> int:
    return sum(1 for function in _functions(tree) for decorator in function.decorator_list
               if _name(decorator) in _CACHE_DECORATORS)


def _circles(package: Path, type_checking: bool) -> dict[str, int]:
    figures = import_graph.measure(package, type_checking=type_checking)
    module_circles, package_circles = figures["module_circles"], figures["package_circles"]
    assert isinstance(module_circles, list) and isinstance(package_circles, list)
    return {"module": len(module_circles), "package": len(package_circles)}


def measure(repo: Path = REPO) -> dict[str, object]:
    """Every figure for the checkout at ``repo`` (see the module docstring for what each counts)."""
    package = repo / import_graph.PACKAGE
    if not package.is_dir():
        raise SystemExit(f"no {import_graph.PACKAGE}/ under {repo}: --repo takes a checkout's root")
    lines = modules = 0
    long_modules: list[str] = []
    long_functions: list[str] = []
    local_imports = caches = 0
    mutables: list[str] = []
    cache_modules: set[str] = set()
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        where = str(path.relative_to(repo))
        count = len(text.splitlines())
        lines += count
        modules += 1
        if count > LONG_MODULE:
            long_modules.append(f"{where} ({count})")
        for function in _functions(tree):
            length = (function.end_lineno or function.lineno) - function.lineno + 1
            if length > LONG_FUNCTION:
                long_functions.append(f"{where}:{function.lineno} {function.name} ({length})")
        local_imports += function_local_imports(tree)
        mutables.extend(f"{where}: {name}" for name in module_level_state(tree))
        used = cache_decorators(tree)
        caches += used
        if used:
            cache_modules.add(where)
    readme = repo / "README.md"
    docs = repo / "docs"
    return {
        "lines": lines, "modules": modules,
        "modules_over_400_lines": long_modules, "functions_over_80_lines": long_functions,
        "function_local_imports": local_imports,
        "function_local_imports_per_1000_lines": round(1000 * local_imports / lines, 1) if lines else 0.0,
        "module_level_state": mutables,
        "cache_decorators": caches, "modules_with_cache_decorators": len(cache_modules),
        "circles_without_type_checking": _circles(package, type_checking=False),
        "circles_with_type_checking": _circles(package, type_checking=True),
        "readme_lines": len(readme.read_text(encoding="utf-8").splitlines()) if readme.is_file() else 0,
        "docs_pages": len(list(docs.rglob("*.md"))) if docs.is_dir() else 0,
    }


def report(figures: dict[str, object], verbose: bool = False) -> str:
    """The figures as lines of text; ``verbose`` lists the long modules, long functions and module-level state."""
    def listed(key: str) -> list[str]:
        value = figures[key]
        assert isinstance(value, list)
        return value

    plain = {"without": figures["circles_without_type_checking"], "with": figures["circles_with_type_checking"]}
    rows = [
        f"lines in {import_graph.PACKAGE}/: {figures['lines']}",
        f"modules: {figures['modules']}",
        f"modules over {LONG_MODULE} lines: {len(listed('modules_over_400_lines'))}",
        f"functions over {LONG_FUNCTION} lines: {len(listed('functions_over_80_lines'))}",
        f"function-local imports: {figures['function_local_imports']} "
        f"({figures['function_local_imports_per_1000_lines']} per 1,000 lines)",
        f"module-level mutable state: {len(listed('module_level_state'))}",
        f"@cache/@lru_cache uses: {figures['cache_decorators']} in {figures['modules_with_cache_decorators']} modules",
    ]
    for label, circles in plain.items():
        assert isinstance(circles, dict)
        rows.append(f"import circles {label} TYPE_CHECKING imports: {circles['module']} module-level, "
                    f"{circles['package']} package-level")
    rows += [f"README lines: {figures['readme_lines']}", f"docs pages: {figures['docs_pages']}"]
    if verbose:
        for key in ("modules_over_400_lines", "functions_over_80_lines", "module_level_state"):
            rows.append(f"{key.replace('_', ' ')}:")
            rows.extend(f"  {entry}" for entry in listed(key))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="the checkout to measure (its root, holding pytest_vitabench/; default: this one)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also list the long modules, the long functions and the module-level state")
    args = parser.parse_args(argv)
    figures = measure(args.repo.resolve())
    print(json.dumps(figures, indent=1) if args.json else report(figures, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
