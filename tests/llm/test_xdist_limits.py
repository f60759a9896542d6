"""Under ``pytest -n 2`` the rate limit holds for both xdist workers together, counted at the stub.

The inner run gets the shared state directory the way the plugin hands it to workers (here through an
environment variable, which xdist workers inherit); each worker has its own client and process.
"""

from __future__ import annotations

from _limits import assert_serial_rate_held
from _stub_llm import StubLLM

INNER = """
import os

import pytest

from pytest_vitabench.llm import LLMClient, LLMSettings

CLIENT = None


@pytest.mark.parametrize("i", range(12))
def test_call(i):
    global CLIENT
    if CLIENT is None:
        CLIENT = LLMClient(LLMSettings(base_url=os.environ["VITA_STUB_URL"], api_key_env="VITA_NO_KEY", cache="off",
                                       rpm=4, rpm_window_s=1.0, max_concurrency=1,
                                       state_dir=os.environ["VITA_TEST_STATE_DIR"]))
    worker = os.environ["PYTEST_XDIST_WORKER"]
    assert CLIENT.complete("agent", model="m", messages=[{"role": "user", "content": worker}]).text
"""


def test_rate_limit_across_xdist_workers(pytester, monkeypatch, tmp_path):
    stub = StubLLM()
    try:
        monkeypatch.setenv("VITA_STUB_URL", stub.base_url)
        monkeypatch.setenv("VITA_TEST_STATE_DIR", str(tmp_path / "state"))
        pytester.makepyfile(test_inner=INNER)
        result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", "-q")
        result.assert_outcomes(passed=12)
        busiest = stub.window_max(1.0)
        span = max(stub.times) - min(stub.times)
        print(f"\n-n 2, rpm 4 per 1 s: busiest 1 s window at the stub held {busiest}; 12 requests over {span:.2f} s")
        assert len(stub.requests) == 12
        assert {r["messages"][0]["content"] for r in stub.requests} == {"gw0", "gw1"}  # both workers sent
        # One request in flight at a time, so arrival order proves the rate whatever the load (tests/_limits.py);
        # 12 requests at 4 per second: arrivals 1 and 10 are two windows apart.
        assert_serial_rate_held(stub.times, 4, 1.0)
    finally:
        stub.close()
