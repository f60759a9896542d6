"""Every recipe of docs/extending.md runs as written: its files (the code blocks after ``<!-- recipe: NAME -->``,
each saved under the name its first comment line gives) beside the suite or in the rootdir, then its command.

The command runs as a user's ``pytest`` console script does, with neither the current folder nor the rootdir on
``sys.path`` (``python -m pytest`` would put the current folder there and hide a module that does not load).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from _docs import DOCS_DIR
from _paths import REPO_ROOT

PAGE = DOCS_DIR / "extending.md"
_BLOCK = re.compile(r"<!-- recipe: (?P<name>[\w-]+) -->\s*\n```(?P<lang>\w+)\n(?P<body>.*?)```", re.S)
#: The recipes the page marks (:func:`_check` says what shows, in the report, that each one took part).
EXPECTED = {"agent", "memory", "judge"}


def recipes() -> dict[str, dict[str, list]]:
    """``{name: {"files": [(file name, text)], "commands": [argv]}}`` in the page's order."""
    found: dict[str, dict[str, list]] = {}
    for match in _BLOCK.finditer(PAGE.read_text(encoding="utf-8")):
        recipe = found.setdefault(match["name"], {"files": [], "commands": []})
        body = match["body"]
        if match["lang"] == "python":
            first = body.splitlines()[0]
            assert first.startswith("# ") and first.endswith(".py"), f"a recipe file starts with '# NAME.py': {first}"
            recipe["files"].append((first[2:], body))
        else:
            recipe["commands"].extend(shlex.split(line) for line in body.splitlines() if line.strip())
    return found


def test_the_page_marks_each_recipe_with_its_files_and_command():
    found = recipes()
    assert set(found) == EXPECTED
    for name, recipe in found.items():
        assert recipe["files"] and recipe["commands"], name
        assert all(argv[0] == "pytest" for argv in recipe["commands"]), name


@pytest.fixture(scope="module")
def console_pytest(tmp_path_factory) -> list[str]:
    """``pytest`` as its console script runs: a script outside the project, so only its own folder joins
    ``sys.path``."""
    script = tmp_path_factory.mktemp("bin") / "pytest_script.py"
    script.write_text("import sys\nimport pytest\nsys.exit(pytest.console_main())\n", encoding="utf-8")
    return [sys.executable, str(script)]


@pytest.mark.parametrize(("where", "extra"), [("suites/demo", []), (".", []), ("suites/demo", ["-n", "2"])],
                         ids=["beside-the-suite", "in-the-rootdir", "under-xdist"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_recipe_runs_as_written(name, where, extra, tmp_path, console_pytest):
    shutil.copytree(REPO_ROOT / "suites" / "demo", tmp_path / "suites" / "demo")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # the rootdir: this folder
    recipe = recipes()[name]
    for file_name, text in recipe["files"]:
        (tmp_path / where / file_name).write_text(text, encoding="utf-8")
    for argv in recipe["commands"]:
        run = subprocess.run([*console_pytest, *argv[1:], *extra, "-p", "no:cacheprovider", "--vita-report", "r.json"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=300)
        output = run.stdout + run.stderr
        assert run.returncode in (0, 1), output  # 1: some items failed, the benchmark's finding
        assert "Error:" not in output and "No module named" not in output, output
        report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
        results = report["results"]
        assert results and not [r for r in results if r["outcome"] == "error"], output
        _check(name, report, output)


def _check(name: str, report: dict, output: str) -> None:
    results = report["results"]
    if name == "memory":
        # the spec's name, not the module path, in ids, the table and the report
        assert report["config"]["memory"] == ["none", "recent"]
        assert {r["memory"] for r in results} == {"none", "recent"}
        assert "[recent-t0]" in output and re.search(r"^recent +subtask ", output, re.M), output
        assert "my_memory" not in output
        recent = [r for r in results if r["memory"] == "recent"]
        none = [r for r in results if r["memory"] == "none"]
        # the demo's reference agent needs the user's history: the backend's memory is what it read
        assert sum(r["reward"] for r in recent) > sum(r["reward"] for r in none)
    elif name == "judge":
        assert report["config"]["judge_model"] == "my_judges:SPEC"
        assert all(r["outcome"] == "failed" and r["reward"] == 0.0 for r in results)
        assert "strict: nothing passes" in output
    else:
        # the agent searches for coffee once and stops: no item is solved by it, and each ends on its STOP
        assert all(r["outcome"] == "failed" for r in results), output
        assert {r["termination"] for r in results} == {"agent_stop"}, {r["termination"] for r in results}
