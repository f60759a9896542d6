"""The request order in a real run: the trials' first agent requests are served from a caching provider's
cache, and the run's items, requests and scores are those of a run without the order."""

from __future__ import annotations

import collections
import json

import pytest
from _caching_llm import BLOCK, caching_stub
from _paths import REPO_ROOT

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"


def _run(pytester, ordered: bool, tmp_name: str):
    stub, _ = caching_stub(delay=0.2)
    report = pytester.path / f"{tmp_name}.json"
    args = [str(DEMO), "-p", "no:cacheprovider", "--vita-model", "stub-model", "--vita-base-url", stub.base_url,
            "--vita-memory", "full_context", "--vita-trials", "4", "--vita-cache", "off", "--vita-concurrency", "8",
            "--vita-preflight", "off", "-k", "U100001", "--vita-report", str(report)]
    if not ordered:
        args += ["-p", "_prefix_order_off"]
    try:
        pytester.runpytest_subprocess(*args)
    finally:
        stub.close()
    # A trial's first agent request (system, greeting, instruction) served whole from cache: all but the last
    # partial block of its prompt.
    first = [cached > prompt - BLOCK
             for request, prompt, cached in zip(stub.requests, stub.replies.prompts, stub.replies.cached, strict=True)
             if len(request["messages"]) == 3]
    bodies = collections.Counter(json.dumps(r, sort_keys=True) for r in stub.requests)
    data = json.loads(report.read_text())
    return first, bodies, {r["nodeid"]: (r["outcome"], r["reward"]) for r in data["results"]}


@pytest.mark.slow
def test_the_trials_first_requests_follow_trial_0_and_nothing_else_changes(pytester, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT / "benchmarks"))  # the measurement plugin _prefix_order_off
    first_on, bodies_on, scores_on = _run(pytester, True, "on")
    first_off, bodies_off, scores_off = _run(pytester, False, "off")
    assert first_on and len(first_on) % 4 == 0
    subtasks = len(first_on) // 4
    assert sum(first_on) == 3 * subtasks  # every trial but the leader reads its whole first prompt from cache
    assert sum(first_off) < 3 * subtasks  # sent together, siblings miss
    assert bodies_on == bodies_off and scores_on == scores_off  # the same requests and scores, in another order
