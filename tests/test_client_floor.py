"""``benchmarks/client_floor.py`` sends the bodies it is given, unchanged, through the real ``openai`` client."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from _paths import REPO_ROOT
from _stub_llm import StubLLM

SCRIPT = REPO_ROOT / "benchmarks" / "client_floor.py"


def _module():
    spec = importlib.util.spec_from_file_location("client_floor", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("asynchronous", [False, True], ids=["threads", "AsyncOpenAI"])
def test_every_body_reaches_the_server_as_recorded_and_the_figures_are_measured(tmp_path, asynchronous):
    bodies = [{"model": "m", "messages": [{"role": "user", "content": f"question {i} ✓"}], "seed": i}
              for i in range(5)]
    stub = StubLLM()
    stub.replies[:] = [{"content": "ok"}] * len(bodies)
    try:
        figures = _module().measure(sys.executable, bodies, stub.base_url, 2, tmp_path, asynchronous=asynchronous)
    finally:
        stub.close()
    assert sorted(stub.requests, key=lambda body: body["seed"]) == bodies
    assert stub.paths == ["/v1/chat/completions"] * len(bodies)
    assert figures["requests"] == len(bodies)
    assert figures["ms_per_request"] > 0 and figures["import_s"] > 0
    assert 0 <= figures["system_ms_per_request"] <= figures["ms_per_request"]
