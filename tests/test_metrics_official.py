"""``--vita-deviation metrics=official``: the subtask level as the official ``_compute_subtask_pass_metrics``.

The hand-computed cases pin each rule; the conformance test runs the official function itself
(VITA_OFFICIAL_PYTHON, a copy of ../shared/official) on the same rewards and compares every figure.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from pytest_vitabench.judges.base import NO_CRITERIA
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.result import ItemResult


def _item(user, index, trial, reward=None, *, no_criteria=False, error=False):
    outcome = "skipped" if no_criteria else "error" if error else ("passed" if reward == 1.0 else "failed")
    return ItemResult(nodeid=f"t::{user}::s{index}[none-t{trial}]", user_id=user, subtask_id=f"s{index}",
                      subtask_index=index, domain="delivery", memory="none", trial=trial,
                      reward=0.0 if reward is None else reward, outcome=outcome,
                      error=NO_CRITERIA if no_criteria else ("boom" if error else None))


def _subtask(results, style, k=4):
    return compute_metrics(results, k=k, bootstrap=0, style=style, trials=4)["none"]["subtask"]


def test_missing_trials_count_zero_each_and_keep_partial_credit():
    results = [_item("U1", 0, t, 1.0) for t in range(3)]  # the fourth trial never ran
    official = _subtask(results, "official")
    assert official["avg@4"] == pytest.approx(0.75)
    assert official["pass@4"] == 1.0 and official["pass^4"] == 0.0
    assert official["n_units"] == 1 and official["n_short"] == 1
    ours = _subtask(results, "default")
    assert (ours["avg@4"], ours["pass@4"], ours["pass^4"]) == (0.0, 0.0, 0.0)


def test_a_subtask_without_criteria_before_a_judged_one_is_a_unit_of_zeros_officially():
    results = [r for t in range(4) for r in (_item("U1", 0, t, 1.0), _item("U1", 1, t, no_criteria=True),
                                             _item("U1", 2, t, 1.0), _item("U1", 3, t, no_criteria=True))]
    official = _subtask(results, "official")
    # s1 lies below the last judged index (2): a unit of 0.0; s3 lies above it: no unit
    assert official["n_units"] == 3 and official["avg@4"] == pytest.approx(2 / 3)
    ours = _subtask(results, "default")
    assert ours["n_units"] == 2 and ours["avg@4"] == 1.0
    # the user level is the mean over judged subtasks in both styles (the official _aggregate_rewards)
    assert compute_metrics(results, k=4, bootstrap=0, style="official")["none"]["user"]["avg@4"] == 1.0


def test_an_unknown_style_is_refused():
    with pytest.raises(ValueError, match="metrics style must be one of default, official"):
        compute_metrics([], style="leaderboard")


def test_the_rules_judge_says_no_criteria_in_the_words_the_metrics_look_for():
    from _suites import delivery_subtask

    from pytest_vitabench.judges import make_judge
    from pytest_vitabench.judges.base import JudgeCase
    from pytest_vitabench.suite.schema import SubTask

    raw = delivery_subtask("s1")
    raw["evaluation_criteria"] = None
    raw.pop("rubric_checks", None)
    sub = SubTask.model_validate(raw)
    case = JudgeCase(subtask=sub, messages=[], environment=None, termination="agent_stop", time="", seed=0)
    assert make_judge("rules").judge(case).not_judgeable == NO_CRITERIA


# --------------------------------------------------------------------------------------------------
# Against the official function

_OFFICIAL = r"""
import json, sys
from types import SimpleNamespace as NS
from vita.metrics.agent_metrics import _compute_subtask_pass_metrics
job = json.load(sys.stdin)
sims = [NS(task_id=s["task_id"], trial=s["trial"], reward_info=NS(info={"subtask_rewards": s["rewards"]}))
        for s in job["sims"]]
results = NS(info=NS(num_trials=job["num_trials"]), tasks=[NS(id=t, domain="personalization") for t in job["tasks"]],
             simulations=sims)
out = _compute_subtask_pass_metrics(results)
sys.stdout.write("\n" + json.dumps({k: (v if not isinstance(v, dict) else {str(a): b for a, b in v.items()})
                                    for k, v in out.items()}))
"""


def _official_inputs(results, num_trials):
    """The official run file's view of the results: one simulation per (user, trial) with a judged subtask."""
    sims: dict[tuple[str, int], dict[str, float]] = {}
    for r in results:
        if r.outcome in ("passed", "failed"):
            sims.setdefault((r.user_id, r.trial), {})[f"subtask_{r.subtask_index}_reward"] = r.reward
    return {"num_trials": num_trials, "tasks": sorted({r.user_id for r in results}),
            "sims": [{"task_id": u, "trial": t, "rewards": rw} for (u, t), rw in sorted(sims.items())]}


def _mixed_run():
    """Three users, four trials: partial rewards, failures, missing items and trials, subtasks without criteria."""
    out = []
    for t in range(4):
        out += [_item("U1", 0, t, [1.0, 0.5, 1.0, 0.0][t]), _item("U1", 1, t, no_criteria=True),
                _item("U1", 2, t, 1.0)]
        if t != 3:  # U1's s3 misses a trial
            out.append(_item("U1", 3, t, [1.0, 1.0, 0.0][t]))
        if t < 2:  # U2 ran two trials of four
            out += [_item("U2", 0, t, 1.0), _item("U2", 1, t, 0.25), _item("U2", 2, t, no_criteria=True)]
        out.append(_item("U3", 0, t, [0.0, 1.0, 1.0, 1.0][t]))
    return out


@pytest.mark.slow
def test_official_style_equals_the_official_subtask_metrics(tmp_path):
    from domains._official_tools import official_python, official_source_copy

    python = official_python()
    src = official_source_copy(tmp_path)
    results = _mixed_run()
    done = subprocess.run([python, "-c", _OFFICIAL], input=json.dumps(_official_inputs(results, 4)), text=True,
                          capture_output=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(src / "src"),
                               "VITA_MODEL_CONFIG_PATH": str(src / "models.yaml")})
    assert done.returncode == 0, done.stderr[-3000:]
    official = json.loads(done.stdout.rsplit("\n", 1)[-1])
    for k in range(1, 5):
        ours = _subtask(results, "official", k=k)
        assert ours["n_units"] == official["num_units"]
        assert ours[f"avg@{k}"] == pytest.approx(official["average_at_n"][str(k)]), k
        assert ours[f"pass@{k}"] == pytest.approx(official["pass_at_n"][str(k)]), k
        assert ours[f"pass^{k}"] == pytest.approx(official["pass_hat_ks"][str(k)]), k
    assert _subtask(results, "default")["avg@4"] != pytest.approx(official["average_at_n"]["4"])
