"""The built-in agents make a generated suite's difficulty visible (a small version of the table in docs/suites.md).

The ceiling (``groundtruth-reader``, or ``reference`` reading the ground truth) solves nearly everything; reading only
the request (``literal``, ``reference`` without memory) picks the popular, well-rated, wrong option; reading
the full noisy history lands in between.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_vitabench.agents import make_builtin_agent
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.synth.config import preset
from pytest_vitabench.synth.generator import generate, write
from pytest_vitabench.users.scripted import ScriptedUser


@pytest.fixture(scope="module")
def suite_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(generate(preset("small", users=10)), tmp_path_factory.mktemp("synth") / "small.vita.json")


def _avg(path: Path, agent_name: str, memory: str) -> float:
    runner = ItemRunner(RunConfig(model=agent_name, memory=[memory], trials=1))
    suite = runner.suite(path)
    agent, user, judge = make_builtin_agent(agent_name), ScriptedUser(), RulesJudge()
    rewards = []
    for loaded in suite.users:
        assert loaded.task is not None, loaded.error
        for index, sub in enumerate(loaded.task.subtasks):
            result = runner.run(nodeid=f"{loaded.key}::{sub.subtask_id}", suite=suite, user=loaded, index=index,
                                memory_name=memory, trial=0, agent=agent, user_simulator=user, judge=judge)
            assert result.outcome != "error", result.error
            assert result.termination in ("agent_stop", "user_stop"), (result.nodeid, result.termination)
            rewards.append(result.reward)
    return sum(rewards) / len(rewards)


def test_the_agents_order_as_the_paper_describes(suite_path):
    oracle = _avg(suite_path, "groundtruth-reader", "full_context")
    literal = _avg(suite_path, "literal", "full_context")
    none, full, truth = (_avg(suite_path, "reference", m) for m in ("none", "full_context", "groundtruth"))
    assert oracle >= 0.95 and truth >= 0.95, (oracle, truth)
    assert literal <= 0.15 and none <= 0.15, (literal, none)
    assert none + 0.1 <= full <= truth - 0.1, (none, full, truth)
