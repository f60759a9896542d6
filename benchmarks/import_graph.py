"""Import circles inside ``pytest_vitabench``, at module level and at package level.

    python benchmarks/import_graph.py            # prints every circle and the counts; exit 1 if any
    python benchmarks/import_graph.py --json     # the same as JSON
    python benchmarks/import_graph.py --root /path/to/old/checkout/pytest_vitabench   # before/after
    python benchmarks/import_graph.py --type-checking   # the circles the type checker sees

What counts as an import: every ``import`` and ``from ... import`` statement of a module under
``pytest_vitabench/``, at module level *and* inside functions and methods (a deferred import still
couples the two modules; it only hides the circle from Python's import machinery), except statements
under ``if TYPE_CHECKING:`` (they never run; ``--type-checking`` counts them too, as the type checker
does). ``from pkg import name`` points at ``pkg.name`` when that is a module or package, else at
``pkg``'s ``__init__``.

Module level: the nodes are the modules (a package's ``__init__`` is its own node, named after the
package); a circle is a strongly connected component of two or more modules, or a module importing
itself.

Package level (the stricter of the usual definitions): for *every* package P, at every depth, the nodes
are P's children, with each subpackage collapsed with everything beneath it, each plain module on its
own, and P's ``__init__`` as one more node; an import from anything in child A of anything in child B is
an edge A -> B. A circle is a strongly connected component of that graph. For the root package this
means the subpackages (``agents``, ``memory``, ``report``...) and the top-level modules (``runner``,
``messages``, ``result``...) must form a layered, acyclic graph: no subpackage may import a top-level
module that imports that subpackage back, directly or through others.

The script also reports, for information, a coarser view that lumps all top-level modules into one
node "(root modules)"; that view cannot be acyclic while shared top-level modules such as ``messages``
sit beside orchestrating ones such as ``runner``, so it is printed but not gated.

Standard library only; nothing is imported from the package itself (the graph is read from the source).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

PACKAGE = "pytest_vitabench"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package: dotted name -> file (``pkg.__init__`` is named ``pkg``)."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST, type_checking: bool = False) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, except the bodies of ``if TYPE_CHECKING:`` (their
    ``else:`` branch runs, so it is kept) unless ``type_checking``: the type checker follows those too."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _resolve_base(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module
    package = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def imports_of(module: str, path: Path, modules: dict[str, Path], type_checking: bool = False) -> set[str]:
    """The package modules that ``module`` imports (see the module docstring for what counts;
    ``type_checking`` counts the ``if TYPE_CHECKING:`` imports too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in _import_nodes(tree, type_checking):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                while name and name not in modules:  # "import a.b.c" of a non-module attribute path
                    name = name.rpartition(".")[0]
                if name:
                    targets.add(name)
            continue
        base = _resolve_base(module, is_package, node)
        if base is None:
            continue
        for alias in node.names:
            if f"{base}.{alias.name}" in modules:
                targets.add(f"{base}.{alias.name}")
            elif base in modules:
                targets.add(base)
    targets.discard(module)
    return targets


def module_graph(root: Path = ROOT, type_checking: bool = False) -> dict[str, set[str]]:
    modules = module_names(root)
    return {name: imports_of(name, path, modules, type_checking) for name, path in modules.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of two or more nodes (or with a self-loop), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    found.append(sorted(component))
    return sorted(found)


def shortest_cycle(graph: dict[str, set[str]], component: Iterable[str]) -> list[str]:
    """One shortest circle through the component's first node, as ``[a, b, ..., a]`` (for reading)."""
    members = set(component)
    start = min(members)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return [start]


def _owner(module: str, package: str) -> str | None:
    """The child of ``package`` that contains ``module`` (``package.__init__`` for the package itself)."""
    if module == package:
        return f"{package}.__init__"
    if not module.startswith(package + "."):
        return None
    return f"{package}.{module[len(package) + 1:].split('.')[0]}"


def package_graphs(graph: dict[str, set[str]]) -> dict[str, dict[str, set[str]]]:
    """For every package, the graph of its children (see the module docstring)."""
    packages = {name for name in graph if any(other.startswith(name + ".") for other in graph)}
    result: dict[str, dict[str, set[str]]] = {}
    for package in sorted(packages):
        children: dict[str, set[str]] = {}
        for source, targets in graph.items():
            owner = _owner(source, package)
            if owner is None:
                continue
            edges = children.setdefault(owner, set())
            for target in targets:
                other = _owner(target, package)
                if other is not None and other != owner:
                    edges.add(other)
        result[package] = children
    return result


def lumped_root_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The coarse view: top-level modules as one node, each top-level subpackage as one node."""
    children = package_graphs(graph)[PACKAGE]
    subpackages = {name for name in children if any(m.startswith(name + ".") for m in graph)}

    def node(name: str) -> str:
        return name if name in subpackages else "(root modules)"

    lumped: dict[str, set[str]] = {}
    for source, targets in children.items():
        lumped.setdefault(node(source), set()).update(node(t) for t in targets if node(t) != node(source))
    return lumped


def _short(name: str) -> str:
    return name.removeprefix(PACKAGE + ".") if name != PACKAGE else "(package __init__)"


def measure(root: Path = ROOT, type_checking: bool = False) -> dict[str, object]:
    """All the figures: module circles, package circles, and the informational lumped view.

    Args:
        root: The package directory to read.
        type_checking: Count the imports under ``if TYPE_CHECKING:`` too (the circles the type checker sees).
    """
    graph = module_graph(root, type_checking)
    module_circles = [{"members": [_short(m) for m in comp], "cycle": [_short(m) for m in shortest_cycle(graph, comp)]}
                      for comp in strongly_connected(graph)]
    package_circles = []
    for package, children in package_graphs(graph).items():
        for comp in strongly_connected(children):
            package_circles.append({"package": _short(package), "members": [_short(m) for m in comp],
                                    "cycle": [_short(m) for m in shortest_cycle(children, comp)]})
    lumped = lumped_root_graph(graph)
    lumped_circles = [{"members": [_short(m) for m in comp], "cycle": [_short(m) for m in shortest_cycle(lumped, comp)]}
                      for comp in strongly_connected(lumped)]
    return {"modules": len(graph), "imports": sum(len(t) for t in graph.values()),
            "module_circles": module_circles, "package_circles": package_circles,
            "lumped_root_circles": lumped_circles}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the package directory to read (default: this checkout's; e.g. an older checkout's "
                             "pytest_vitabench/ for a before/after comparison)")
    parser.add_argument("--type-checking", action="store_true",
                        help="count the imports under `if TYPE_CHECKING:` too (the circles mypy sees)")
    args = parser.parse_args(argv)
    figures = measure(args.root, args.type_checking)
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        counted = "included" if args.type_checking else "excluded"
        print(f"{figures['modules']} modules, {figures['imports']} imports inside {PACKAGE} "
              f"(function-level included, TYPE_CHECKING {counted})")
        for title, key in (("module-level circles", "module_circles"), ("package-level circles", "package_circles"),
                           ("lumped root view (information only)", "lumped_root_circles")):
            circles = figures[key]
            assert isinstance(circles, list)
            print(f"{title}: {len(circles)}")
            for circle in circles:
                where = f"in {circle['package']}: " if "package" in circle else ""
                print(f"  {where}{' -> '.join(circle['cycle'])}   (members: {', '.join(circle['members'])})")
    return 1 if figures["module_circles"] or figures["package_circles"] else 0


if __name__ == "__main__":
    sys.exit(main())
