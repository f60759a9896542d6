"""A role that keeps failing is a short error; Ctrl-C keeps every finished result."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from _engine_helpers import REQUESTS_PER_ITEM, scripted_stub, write_many
from _stub_llm import StubLLM

LLM = ["-p", "no:cacheprovider", "--vita-model", "stub-model", "--vita-memory", "none", "--vita-trials", "1"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    write_many(pytester.path / "tasks.json", users=1, subtasks=1)
    return pytester


@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_a_refused_call_is_an_error_with_a_one_line_message(project, concurrency):
    stub = StubLLM()
    try:
        stub.replies += [(400, {"error": {"message": "unsupported parameter"}})] * 2
        args = [*LLM, "--vita-base-url", stub.base_url, "--vita-concurrency", concurrency]
        result = project.runpytest_subprocess(*args)
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines(["*infrastructure error: LLMError: agent LLM call to 127.0.0.1:* "
                                     "(model stub-model) failed after 1 attempt(s): HTTP 400 (not retried): "
                                     "unsupported parameter*"])
        text = result.stdout.str()
        assert "Traceback" not in text and "def vita_result" not in text and "_item_result" not in text
        verbose = project.runpytest_subprocess(*args, "-v")
        assert "Traceback (most recent call last)" in verbose.stdout.str()
    finally:
        stub.close()


def _ctrl_c_as_in_a_terminal() -> None:
    # A job a shell starts in the background (`cmd &`, some CI runners) inherits SIGINT ignored, and Python then
    # installs no handler: the child would never see the Ctrl-C this test sends.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_keeps_every_finished_result(project):
    # 32 items of 0.6 s at concurrency 2 (~10 s): room for the interrupt to land mid-run even on a loaded machine
    write_many(project.path / "tasks.json", users=16, subtasks=2)
    stub = scripted_stub(delay=0.3)
    try:
        process = subprocess.Popen([sys.executable, "-m", "pytest", *LLM, "--vita-base-url", stub.base_url,
                                    "--vita-concurrency", "2"], cwd=project.path, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, preexec_fn=_ctrl_c_as_in_a_terminal)
        deadline = time.time() + 300
        journal = project.path / ".vitabench" / "runs"
        while time.time() < deadline and process.poll() is None and not list(journal.glob("*/journal/*.jsonl")):
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=120)
        assert process.returncode == pytest.ExitCode.INTERRUPTED, output[-2000:]
        lines = [json.loads(line) for f in journal.glob("*/journal/*.jsonl") for line in f.read_text().splitlines()]
        assert 1 <= len(lines) < 32
        assert len({line["nodeid"] for line in lines}) == len(lines)
        before = len(stub.requests)
        resumed = subprocess.run([sys.executable, "-m", "pytest", *LLM, "--vita-base-url", stub.base_url,
                                  "--vita-resume"], cwd=project.path, capture_output=True, text=True, timeout=300)
        assert len(stub.requests) - before == (32 - len(lines)) * REQUESTS_PER_ITEM
        assert "partial" not in resumed.stdout and "VitaBench results" in resumed.stdout
    finally:
        stub.close()
