"""The "Measure" figures of issue 31 that a checkout shows: its option surface, its run header, its house.

    python benchmarks/surface_metrics.py                       # this checkout, as a table
    python benchmarks/surface_metrics.py --repo /path/to/main  # another checkout (before/after)
    python benchmarks/surface_metrics.py --json

The help and header figures run the checkout: with its ``.venv/bin/python`` when it has one, else with this
interpreter and ``PYTHONPATH`` set to the checkout (the script stops if that interpreter imports
``pytest_vitabench`` from elsewhere). Both run from the checkout's root with ``COLUMNS=80``. What counts:

- *--vita-\\* options*: distinct ``--vita-...`` spellings on the option lines of ``pytest --help`` (a line starting
  with two spaces and ``-``); *ini keys*: distinct ``vita_...`` keys of its ini section (the section whose heading
  starts with ``[pytest]``).
- *our help lines*: the non-blank lines of every option group (its heading included) with at least one
  ``--vita-`` option, plus, in the ini section, each ``vita_...`` key's line and its continuation lines (the lines
  after it indented by more than two spaces). Both parts are given apart and summed; the issue's "about 250 of
  them are ours" and its target (at most 120) count the option groups. Also the whole help's line count, for
  scale (it depends on the pytest plugins installed: 1,094 lines in the project's .venv at d0561e7).
- *header*: ``pytest suites/demo`` is run twice, with and without the plugin (``-p no:vitabench``, ``--co``). The
  run header's lines are the lines before ``collected ...`` that only the run with the plugin prints (the
  ``plugins:`` line aside), plus the lines of the summary between the ``VitaBench results`` banner and the metrics
  table (``VitaBench metrics ...``). *Header length* is the longest of these lines, in characters (on main at
  d0561e7: the ``vitabench profile: ...`` line, printed at the top and again in the summary).

Read from the source, without running (``house_metrics`` gives lines, modules and import circles):

- *modules directly in pytest_vitabench/*: its ``*.py`` files, ``__init__.py`` included; *packages* beside them;
  *modules*: every ``*.py`` under it; *lines*: all their lines; *modules over 600 lines*.
- *modules mentioning "official"*: whose text matches ``\\bofficial\\b``, any case (``official_source`` is one word,
  so it does not count by itself).
- *comparisons with "official"*: outside ``pytest_vitabench/official/``, each comparison (``==``, ``!=``, ``in``,
  ``not in``, ``is``, ``is not``) with the string constant ``"official"`` on either side, or inside a literal
  tuple, list or set on either side; and each ``case "official":`` pattern. For information, the number of
  ``"official"`` string constants outside that package (any use) too.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import house_metrics  # noqa: E402
import import_graph  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PACKAGE = import_graph.PACKAGE
OFFICIAL_PACKAGE = Path(PACKAGE) / "official"
LONG_MODULE = 600
WORD_OFFICIAL = re.compile(r"\bofficial\b", re.IGNORECASE)
VITA_OPTION = re.compile(r"--vita-[a-z0-9-]+")
COMPARING = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
#: figure -> the issue's target (at most), shown beside the figures
#: Issue 31's 35 options, and the two issue 33 names as options of their own (--vita-budget-usd, --vita-early-stop).
TARGETS = {"vita_options": 37, "help_option_lines": 120, "header_length": 160, "top_level_modules": 10,
           "official_modules": 40, "official_comparisons": 0, "modules_over_600_lines": 0,
           "import_circles_with_type_checking": 0}


# -- running the checkout ------------------------------------------------------------------------------------

def interpreter(repo: Path) -> tuple[str, dict[str, str]]:
    """The checkout's Python and environment; stops when it would import the package from elsewhere."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["COLUMNS"] = "80"
    venv = repo / ".venv" / "bin" / "python"
    python = str(venv) if venv.is_file() else sys.executable
    if not venv.is_file():
        env["PYTHONPATH"] = os.pathsep.join([str(repo), *filter(None, [env.get("PYTHONPATH")])])
    found = subprocess.run([python, "-c", f"import {PACKAGE}; print({PACKAGE}.__file__)"], cwd=repo, env=env,
                           capture_output=True, text=True, check=False).stdout.strip()
    if not found or repo.resolve() not in Path(found).resolve().parents:
        raise SystemExit(f"{python} imports {PACKAGE} from {found or 'nowhere'}, not from {repo}")
    return python, env


def pytest_output(repo: Path, *arguments: str) -> list[str]:
    python, env = interpreter(repo)
    done = subprocess.run([python, "-m", "pytest", *arguments], cwd=repo, env=env, capture_output=True,
                          text=True, check=False)
    return done.stdout.splitlines()


# -- pytest --help -------------------------------------------------------------------------------------------

def _sections(lines: list[str]) -> list[tuple[str, list[str]]]:
    """``(heading, lines under it)`` for every heading (a line at column 0 ending with ``:``)."""
    sections: list[tuple[str, list[str]]] = []
    for line in lines:
        if line and not line[0].isspace() and line.endswith(":"):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
    return sections


def help_figures(lines: list[str]) -> dict[str, object]:
    """The option and ini-key figures of ``pytest --help``'s lines (see the module docstring)."""
    options: set[str] = set()
    keys: set[str] = set()
    groups: dict[str, int] = {}
    ini_lines = 0
    for heading, body in _sections(lines):
        if heading.startswith("[pytest]"):
            inside = False
            for line in body:
                if line.startswith("  ") and not line.startswith("   "):
                    key = line.split()[0]
                    inside = key.startswith("vita_")
                    if inside:
                        keys.add(key)
                elif not line.startswith("   "):
                    inside = False
                ini_lines += inside
            continue
        found = {o for line in body if line.startswith("  -") for o in VITA_OPTION.findall(line.split("  ")[1])}
        if found:
            options |= found
            groups[heading.rstrip(":")] = 1 + sum(1 for line in body if line.strip())
    return {"help_lines": len(lines), "vita_options": len(options), "vita_ini_keys": len(keys),
            "help_option_lines": sum(groups.values()), "help_option_group_lines": groups,
            "help_our_lines": sum(groups.values()) + ini_lines,
            "help_ini_key_lines": ini_lines}


# -- the run header ------------------------------------------------------------------------------------------

def _top(lines: list[str]) -> list[str]:
    block = []
    for line in lines[1:]:  # after the "test session starts" rule
        if line.startswith(("collected ", "collecting ", "no tests ran")) or not line.strip():
            break
        block.append(line)
    return block


def header_lines(with_plugin: list[str], without_plugin: list[str]) -> dict[str, list[str]]:
    """Our lines of the top block and of the summary, from the outputs with and without the plugin."""
    theirs = set(_top(without_plugin))
    top = [line for line in _top(with_plugin) if line not in theirs and not line.startswith("plugins:")]
    summary: list[str] = []
    banner = next((i for i, line in enumerate(with_plugin) if re.fullmatch(r"=+ VitaBench results =+", line)), None)
    if banner is not None:
        for line in with_plugin[banner + 1:]:
            if line.startswith("VitaBench metrics") or not line.strip() or line.startswith("="):
                break
            summary.append(line)
    return {"top": top, "summary": summary}


def header_figures(repo: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="surface-") as tmp:
        common = ["suites/demo", "-p", "no:cacheprovider", "--rootdir", str(repo)]
        with_plugin = pytest_output(repo, *common, "--vita-report", str(Path(tmp) / "report.json"))
        report = json.loads((Path(tmp) / "report.json").read_text(encoding="utf-8"))
    run_dir = Path(report.get("run", {}).get("dir") or "")
    if run_dir.is_dir() and (repo / ".vitabench" / "runs") in run_dir.parents:
        shutil.rmtree(run_dir)
    without_plugin = pytest_output(repo, *common, "-p", "no:vitabench", "--co")
    lines = header_lines(with_plugin, without_plugin)
    every = lines["top"] + lines["summary"]
    return {"header_length": max((len(line) for line in every), default=0),
            "header_top_lines": len(lines["top"]), "header_summary_lines": len(lines["summary"]),
            "header": lines}


# -- the source ----------------------------------------------------------------------------------------------

def _is_official(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value == "official"
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(isinstance(e, ast.Constant) and e.value == "official" for e in node.elts)
    return False


def official_comparisons(tree: ast.AST) -> list[int]:
    """Line numbers of the comparisons with ``"official"`` (see the module docstring)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, COMPARING) for op in node.ops) and any(
                _is_official(side) for side in (node.left, *node.comparators)):
            found.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _is_official(node.value):
            found.append(node.lineno)
    return sorted(found)


def source_figures(repo: Path) -> dict[str, object]:
    package = repo / PACKAGE
    house = house_metrics.measure(repo)
    official_modules = 0
    long_modules: list[str] = []
    comparisons: list[str] = []
    constants = 0
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(repo)
        official_modules += bool(WORD_OFFICIAL.search(text))
        if len(text.splitlines()) > LONG_MODULE:
            long_modules.append(f"{where} ({len(text.splitlines())})")
        if OFFICIAL_PACKAGE in where.parents:
            continue
        tree = ast.parse(text, filename=str(path))
        comparisons.extend(f"{where}:{line}" for line in official_comparisons(tree))
        constants += sum(1 for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value == "official")
    circles = house["circles_with_type_checking"]
    assert isinstance(circles, dict)
    return {
        "top_level_modules": len(list(package.glob("*.py"))),
        "top_level_packages": sum(1 for p in package.iterdir() if (p / "__init__.py").is_file()),
        "modules": house["modules"], "lines": house["lines"],
        "modules_over_600_lines": len(long_modules), "long_modules": long_modules,
        "official_modules": official_modules,
        "official_comparisons": len(comparisons), "official_comparison_places": comparisons,
        "official_constants": constants,
        "import_circles_with_type_checking": circles["module"] + circles["package"],
    }


# -- output --------------------------------------------------------------------------------------------------

ROWS = [
    ("vita_options", "--vita-* options in pytest --help"),
    ("vita_ini_keys", "vita_* ini keys"),
    ("help_option_lines", "our option-group lines of pytest --help"),
    ("help_ini_key_lines", "our ini-key lines of pytest --help"),
    ("help_our_lines", "our lines of pytest --help (both)"),
    ("help_lines", "all lines of pytest --help"),
    ("header_length", "run header length (longest line)"),
    ("header_top_lines", "our header lines at the top"),
    ("top_level_modules", "modules directly in pytest_vitabench/"),
    ("top_level_packages", "packages directly in pytest_vitabench/"),
    ("modules", "modules in pytest_vitabench/ (total)"),
    ("lines", "lines in pytest_vitabench/"),
    ("modules_over_600_lines", "modules over 600 lines"),
    ("official_modules", 'modules mentioning "official"'),
    ("official_comparisons", 'comparisons with "official" outside official/'),
    ("official_constants", '"official" string constants outside official/'),
    ("import_circles_with_type_checking", "import circles (with TYPE_CHECKING)"),
]


def table(figures: dict[str, object]) -> str:
    rows = [f"{'figure':<48} {'value':>7}  target"]
    for key, label in ROWS:
        target = f"<= {TARGETS[key]}" if key in TARGETS else ""
        rows.append(f"{label:<48} {figures[key]!s:>7}  {target}".rstrip())
    return "\n".join(rows)


def measure(repo: Path, run: bool = True) -> dict[str, object]:
    figures: dict[str, object] = {"repo": str(repo)}
    if run:
        figures.update(help_figures(pytest_output(repo, "--help")))
        figures.update(header_figures(repo))
    figures.update(source_figures(repo))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to measure (default: this one)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-run", action="store_true",
                        help="only the figures read from the source (no pytest --help, no demo run)")
    args = parser.parse_args(argv)
    figures = measure(args.repo.resolve(), run=not args.no_run)
    if args.json:
        print(json.dumps(figures, indent=1))
    elif args.no_run:
        print("\n".join(f"{label:<48} {figures[key]!s:>7}" for key, label in ROWS if key in figures))
    else:
        print(table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
