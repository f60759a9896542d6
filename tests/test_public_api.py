"""The public API: every name a custom agent, user, judge or memory needs, typed for type checkers,
loaded lazily, and the only thing the worked examples import."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
import subprocess
import sys

import pytest
from _docs import doc_texts
from _paths import REPO_ROOT

import pytest_vitabench

#: What an extension needs, by role (a name missing here is a name a user would import from a module path).
NEEDED = {
    "agent": {"Agent", "AgentSetup", "Message", "ToolCall", "STOP_TOKEN"},
    "user": {"UserSimulator", "UserSetup", "Message"},
    "judge": {"Judge", "JudgeCase", "Verdict", "RubricVerdict", "reward_of", "Environment", "SubTask", "JudgeSpec",
              "JudgeOptions"},
    "memory": {"Memory", "MemoryContext", "EMPTY_MEMORY", "Tool", "ToolError", "DailyRecord", "EventRecord",
               "render_record", "Usage", "MemorySpec", "MemoryOptions"},
    "results": {"ItemResult", "open_run"},
}


def test_every_needed_name_is_exported_and_is_the_real_object():
    names = set().union(*NEEDED.values())
    assert sorted(pytest_vitabench.__all__) == sorted(pytest_vitabench._HOMES)
    assert names <= set(pytest_vitabench.__all__)
    for name in pytest_vitabench.__all__:
        home = importlib.import_module(f"pytest_vitabench.{pytest_vitabench._HOMES[name]}")
        assert getattr(pytest_vitabench, name) is getattr(home, name), name
    assert set(pytest_vitabench.__all__) <= set(dir(pytest_vitabench))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        pytest_vitabench.Nope  # noqa: B018
    assert not hasattr(pytest_vitabench, "_private")


def test_importing_the_package_loads_nothing_else():
    """pytest imports the plugin's package in every session: the re-exports must not load on import."""
    code = ("import sys, pytest_vitabench; "
            "print(sorted(m for m in sys.modules if m.startswith('pytest_vitabench')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['pytest_vitabench']"


def _imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return [name for name in found if name.split(".")[0] == "pytest_vitabench"]


def _worked_examples() -> list[tuple[str, str]]:
    sources = [(str(path.relative_to(REPO_ROOT)), path.read_text(encoding="utf-8"))
               for path in sorted((REPO_ROOT / "examples").rglob("*.py"))]
    for name, text in doc_texts().items():
        for number, block in enumerate(re.findall(r"```python\n(.*?)```", text, flags=re.S)):
            sources.append((f"{name} python block {number + 1}", block))
    return sources


def test_worked_examples_import_only_the_public_api():
    examples = _worked_examples()
    assert any(name.startswith("examples/") for name, _ in examples)
    assert any(name.startswith("docs/") for name, _ in examples)  # the pages' Python blocks are read too
    private = {name: [m for m in _imports(ast.parse(text)) if m != "pytest_vitabench"] for name, text in examples}
    assert {name: modules for name, modules in private.items() if modules} == {}
    used = {alias.name for _, text in examples for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.ImportFrom) and node.module == "pytest_vitabench" for alias in node.names}
    assert used and used <= set(pytest_vitabench.__all__)


SNIPPET = '''
import pytest_vitabench
from pytest_vitabench import AgentSetup, Message

reveal_type(pytest_vitabench.Agent)
reveal_type(pytest_vitabench.Verdict)


class EchoAgent:
    def respond(self, setup: AgentSetup, messages: list[Message]) -> Message:
        return Message(role="assistant", content="hello")


agent: pytest_vitabench.Agent = EchoAgent()
wrong: int = pytest_vitabench.Message(role="user", content="x")
typo = pytest_vitabench.Agnet
'''


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="needs mypy (pip install mypy)")
def test_type_checkers_see_the_real_classes(tmp_path):
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    # mypy does not follow setuptools' editable-install finder; point it at the source tree.
    env = {**os.environ, "MYPYPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", "--cache-dir",
         str(tmp_path / "cache"), "--no-error-summary", str(snippet)],
        capture_output=True, text=True, cwd=tmp_path, env=env)
    lines = result.stdout.splitlines()
    revealed = [line.split("Revealed type is ", 1)[1] for line in lines if "Revealed type is" in line]
    assert len(revealed) == 2, result.stdout + result.stderr
    assert revealed[0] == '"def () -> pytest_vitabench.agents.base.Agent"'
    assert revealed[1].endswith('-> pytest_vitabench.judges.base.Verdict"')
    errors = [line for line in lines if ": error:" in line]
    # The conforming agent type-checks; the wrong assignment and the misspelled name are caught (so nothing is
    # Any or object).
    assert len(errors) == 2, lines
    assert 'expression has type "Message", variable has type "int"' in errors[0]
    assert 'has no attribute "Agnet"' in errors[1]
