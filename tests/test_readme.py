"""Documented examples run as written: every command in a fenced shell block of README.md or of a page
under docs/ that names ``suites/demo`` is executed against a copy of the demo suite.

Each command runs in a temporary project (a copy of ``suites/demo`` and an empty ``pytest.ini``), so runs
write no report, cache or journal into the repository. Commands that name an LLM model get an
OpenAI-compatible stub on 127.0.0.1 through ``OPENAI_BASE_URL`` (and any ``http://127.0.0.1:PORT/v1`` in the
command is pointed at it); nothing leaves loopback. ``pip install ... &&`` in front of a command is not run:
the package under test is already installed.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from _docs import README, doc_texts
from _paths import REPO_ROOT
from _stub_llm import StubLLM

#: A fenced block and its language; every fence is matched (a yaml block too), so that the blocks never shift.
_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_SHELL = ("", "bash", "sh", "shell", "console")


def demo_commands(text: str) -> list[str]:
    """The shell commands in ``text``'s fenced blocks that name suites/demo, continuation lines joined; not a
    recipe's (``<!-- recipe: NAME -->`` before its block), which needs its files: tests/test_docs_recipes.py runs
    those with them."""
    commands = []
    for match in _FENCE.finditer(text):
        language, block = match.groups()
        if language not in _SHELL or text[:match.start()].rstrip().endswith("-->") and \
                text[:match.start()].rstrip().rsplit("\n", 1)[-1].lstrip().startswith("<!-- recipe:"):
            continue
        for line in block.replace("\\\n", " ").splitlines():
            if "suites/demo" not in line or line.lstrip().startswith(("#", "$ vitabench", "vitabench")):
                continue
            command = line.split("&&")[-1].strip()
            if command.startswith("pytest "):
                commands.append(command)
    return commands


DOCS = doc_texts()
#: Each distinct command once (a page may repeat the README's), in the order the files list them.
COMMANDS = list(dict.fromkeys(command for text in DOCS.values() for command in demo_commands(text)))


def test_the_readme_and_the_docs_have_demo_commands():
    readme = [command.split("#")[0].strip() for command in demo_commands(README.read_text(encoding="utf-8"))]
    assert "pytest suites/demo" in readme and 'pytest suites/demo -k "U100002 and t0"' in readme
    from_pages = {command for name, text in DOCS.items() if name.startswith("docs/") for command in demo_commands(text)}
    assert len(from_pages) >= 6, from_pages
    assert any(c.startswith("pytest suites/demo --vita-failures") for c in from_pages)  # a page's own command
    assert len(COMMANDS) >= 8, COMMANDS


@pytest.fixture(scope="module")
def stub():
    server = StubLLM()
    yield server
    server.close()


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_runs_as_written(command, tmp_path, stub):
    shutil.copytree(REPO_ROOT / "suites" / "demo", tmp_path / "suites" / "demo")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    argv = shlex.split(re.sub(r"http://127\.0\.0\.1:\d+/v1", stub.base_url, command), comments=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_"))}
    env["OPENAI_BASE_URL"] = stub.base_url
    env["OPENAI_API_KEY"] = "dummy-key-for-the-readme-tests"  # a stand-in: the stub checks no key
    done = subprocess.run([sys.executable, "-m", "pytest", *argv[1:], "-p", "no:cacheprovider"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    # 0, or 1 when some items failed (a plain run exits as pytest does); never a usage error or an empty run
    assert done.returncode in (0, 1), output[-3000:]
    assert "VitaBench results" in output and "items: " in output, output[-3000:]
    assert re.search(r"\b[1-9]\d* (passed|failed)", output), output[-3000:]
    if "--vita-fail-under" in command:
        assert done.returncode == 0 and "fail-under thresholds met" in output, output[-3000:]
    if "--vita-report" in command:
        assert (tmp_path / argv[argv.index("--vita-report") + 1]).is_file()


def _what_you_see_blocks() -> list[list[str]]:
    """The fenced blocks of the README's "What you see" section, as lines."""
    section = README.read_text(encoding="utf-8").split("## What you see", 1)[1].split("\n## ", 1)[0]
    return [block.rstrip("\n").splitlines() for _, block in _FENCE.findall(section)]


def _untimed(line: str) -> str:
    """A line with its timings blanked: the only thing that may differ between two runs of the demo."""
    return re.sub(r"\b\d+(\.\d+)?s\b", "<time>", line.rstrip())


def test_what_you_see_is_the_real_output(tmp_path):
    shutil.copytree(REPO_ROOT / "suites" / "demo", tmp_path / "suites" / "demo")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_", "OPENAI_", "VITA_"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/demo", "-p", "no:cacheprovider"], cwd=tmp_path,
                          env={**env, "COLUMNS": "80"}, capture_output=True, text=True, timeout=900)
    output = [_untimed(line) for line in done.stdout.splitlines()]
    table, failure = _what_you_see_blocks()
    # the table: from the results banner on, line by line
    start = output.index(table[0].rstrip())
    assert [_untimed(line) for line in table] == output[start:start + len(table)]
    # a failed item's message: the same lines, one after another, somewhere in the failures
    failure = [_untimed(line) for line in failure]
    assert any(output[i:i + len(failure)] == failure for i in range(len(output))), failure
