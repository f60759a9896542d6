"""The shape of the plugin layer: one session object per process holds the run's state and hooks.

These keep the house from regrowing module-level hooks that look the state up, accessors injected into the
controller, and attributes of our own set on other libraries' objects.
"""

from __future__ import annotations

import ast

from _paths import REPO_ROOT

PACKAGE = REPO_ROOT / "pytest_vitabench"
#: The hooks plugin.py itself implements: the options, the registration of the session, and collection.
#: pytest_load_initial_conftests belongs to the options: it spells an optional value attached (--vita-resume).
PLUGIN_HOOKS = {"pytest_addhooks", "pytest_addoption", "pytest_load_initial_conftests", "pytest_configure",
                "pytest_collect_file"}


def _tree(name: str) -> ast.Module:
    return ast.parse((PACKAGE / name).read_text(encoding="utf-8"))


def test_plugin_py_implements_only_options_registration_and_collection():
    hooks = {node.name for node in _tree("pytest_plugin/plugin.py").body
             if isinstance(node, ast.FunctionDef) and node.name.startswith("pytest_")}
    assert hooks == PLUGIN_HOOKS


def test_plugin_py_stays_small():
    assert len((PACKAGE / "pytest_plugin/plugin.py").read_text(encoding="utf-8").splitlines()) <= 300


def test_every_other_hook_is_a_method_of_the_session_objects():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() in ("pytest_plugin/plugin.py",
                                                    "pytest_plugin/hookspecs.py"):  # package-relative, as _tree
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef):
                assert not node.name.startswith("pytest_"), f"{path.relative_to(REPO_ROOT)}: {node.name}"


def test_no_vita_attributes_are_set_on_other_objects():
    # pytest's and xdist's objects (items, configs, reports' own fields) pass through these modules; what the
    # run needs to keep lives on the session, or on a typed field of our VitaItem.
    layer = [PACKAGE / name for name in ("pytest_plugin/plugin.py", "pytest_plugin/session.py",
                                         "pytest_plugin/controller.py", "run/runner.py")]
    for path in [*layer, *sorted((PACKAGE / "run/engine").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                assert not (isinstance(target, ast.Attribute) and target.attr.startswith("_vita_")), \
                    f"{path.relative_to(REPO_ROOT)}:{node.lineno}: {target.attr}"
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and len(node.args) > 1:
                name = node.args[1]
                assert not (isinstance(name, ast.Constant) and str(name.value).startswith("_vita_")), \
                    f"{path.relative_to(REPO_ROOT)}:{node.lineno}"


ADAPTER = sorted((PACKAGE / "pytest_plugin").glob("*.py"))
#: What the adapter imports of the rest of the package at module level: the option declarations, which
#: pytest_addoption needs in every session (standard library only, like the modules they load).
LIGHT = {"options.settings"}


def _imports(tree: ast.AST, *, in_functions: bool) -> list[ast.ImportFrom]:
    """The package-relative imports of a module, at module level or inside its functions."""
    found: list[ast.ImportFrom] = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                continue  # annotations only
            if isinstance(child, ast.ImportFrom) and child.level and inside == in_functions:
                found.append(child)
            visit(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(tree, False)
    return found


def test_the_adapter_imports_only_pytest_the_standard_library_and_the_option_declarations_at_module_level():
    # pytest loads them in every session, with suites or without (tests/plugin/test_running.py runs one)
    for path in ADAPTER:
        for node in _imports(ast.parse(path.read_text(encoding="utf-8")), in_functions=False):
            assert node.level == 1 or (node.level == 2 and node.module in LIGHT), \
                f"{path.name}: from {'.' * node.level}{node.module} import ..."


def test_the_adapter_reaches_the_run_core_at_one_seam():
    # As pytest-xdist's plugin imports DSession once: session.run_core() is the one import of the run core;
    # the suite-file rule (standard library only) is asked of every .json file pytest meets, without a run.
    outside = sorted((path.name, "." * node.level + (node.module or ""))
                     for path in ADAPTER for node in _imports(ast.parse(path.read_text(encoding="utf-8")),
                                                               in_functions=True) if node.level > 1)
    assert outside == [("session.py", "..run.core"), ("session.py", "..suite.discovery")]
