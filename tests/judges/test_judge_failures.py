"""Judge failures are never the agent's: unscored rubrics, ``--vita-deviation judge-failures``, the metrics that skip
them."""

from __future__ import annotations

import json

import pytest
from _stub_llm import StubLLM
from test_llm_judge import R1, R2, case, client_for, verdicts

from pytest_vitabench.judges.base import RubricVerdict, unscored_reward
from pytest_vitabench.judges.contradiction import contradiction
from pytest_vitabench.judges.llm_rubric import LLMRubricJudge
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.report.terminal import render_table
from pytest_vitabench.result import ItemResult
from pytest_vitabench.run.wiring import Benchmark


@pytest.fixture
def stub():
    server = StubLLM()
    yield server
    server.close()


def _v(met, failure=None) -> RubricVerdict:
    return RubricVerdict(text="r", met=met, judge_failure=failure)


def test_a_returned_unmet_verdict_decides_the_reward_whatever_the_judge_failed_on():
    assert unscored_reward([_v(False), _v(None, "unreadable")]) == (0.0, None)
    assert unscored_reward([_v(True), _v(True)]) == (1.0, None)
    reward, why = unscored_reward([_v(True), _v(None, "unreadable")])
    assert reward == 0.0 and why is not None and "1 verdict(s): unreadable" in why
    assert unscored_reward([_v(True), _v(None, "unreadable")], "zero") == (0.0, None)
    assert unscored_reward([_v(True), _v(None)]) == (0.0, None)  # not judged for another reason: unmet
    with pytest.raises(ValueError, match="--vita-deviation judge-failures must be one of unscored, zero, got 'maybe'"):
        unscored_reward([], "maybe")


@pytest.mark.parametrize("met, text, contradicts", [
    (True, "Not met: the agent ordered the durian cake.", True),
    (True, "The agent never asked for the date, so the rubric is not met.", True),
    (False, "Met. The order is paid.", True),
    (False, "The requirement is fully satisfied by order O1.", True),
    (True, "The dessert does not contain durian, as required.", False),
    (False, "The agent did not pay the order.", False),
    (True, "Met only partly: the rubric is not met for the time, but met for the place.", False),
    (True, "", False),
])
def test_a_justification_that_says_the_opposite_is_caught_and_plain_negations_are_not(met, text, contradicts):
    assert (contradiction(met, text) is not None) is contradicts


def test_malformed_replies_after_the_repair_leave_the_item_unscored(stub):
    stub.replies += [{"content": "I cannot decide."}, {"content": "still no JSON"}]
    verdict = LLMRubricJudge("judge-m", client=client_for(stub), mode="full").judge(case())
    assert len(stub.requests) == 2  # the reply and one repair request
    assert verdict.unscored is not None and "unreadable after one repair retry" in verdict.unscored
    assert all(r.met is None and r.judge_failure for r in verdict.rubrics)
    assert verdict.details["unscored"] == verdict.unscored


def test_the_official_policy_scores_a_judge_failure_zero(stub):
    stub.replies += [{"content": "nope"}, {"content": "nope"}]
    verdict = LLMRubricJudge("judge-m", client=client_for(stub), mode="full", failures="zero").judge(case())
    assert verdict.reward == 0.0 and verdict.unscored is None
    assert len(verdict.judge_failures) == 2  # still reported as the judge's failures


def test_a_missing_verdict_is_unscored_but_a_returned_unmet_one_fails_the_item(stub):
    only_first = {"content": json.dumps([{"rubric_idx": 1, "met": True, "justification": "ordered P2"}])}
    stub.replies += [only_first]  # readable: no repair request, the missing rubric is a judge failure
    verdict = LLMRubricJudge("judge-m", client=client_for(stub), mode="full").judge(case())
    assert [r.met for r in verdict.rubrics] == [True, None]
    assert verdict.rubrics[1].text == R2 and verdict.rubrics[1].judge_failure
    assert verdict.unscored is not None
    stub.replies += [{"content": json.dumps([{"rubric_idx": 1, "met": False, "justification": "P1"}])}]
    failed = LLMRubricJudge("judge-m", client=client_for(stub), mode="full").judge(case(seed=8))
    assert failed.reward == 0.0 and failed.unscored is None and failed.rubrics[0].text == R1


def test_a_contradicted_verdict_is_a_judge_failure(stub):
    stub.replies += [verdicts(True, True, why="Not met: nothing was paid, see message")]
    verdict = LLMRubricJudge("judge-m", client=client_for(stub), mode="full").judge(case())
    assert all(r.met is None for r in verdict.rubrics)
    assert "justification says 'Not met'" in (verdict.rubrics[0].judge_failure or "")
    assert verdict.unscored is not None


def test_votes_leave_a_failed_vote_out_of_the_count_unless_the_official_policy_is_set(stub):
    stub.replies += [verdicts(True, True), {"content": "x"}, {"content": "x"}, verdicts(True, True)]
    verdict = LLMRubricJudge("judge-m", client=client_for(stub), mode="full", votes=3).judge(case())
    assert verdict.reward == 1.0 and verdict.unscored is None  # 2 of the 2 votes that judged
    stub.replies += [verdicts(True, True), {"content": "x"}, {"content": "x"}, verdicts(False, True)]
    zero = LLMRubricJudge("judge-m", client=client_for(stub), mode="full", votes=3, failures="zero").judge(case())
    assert zero.reward == 0.0 and zero.rubrics[0].met is False  # 1 of 3 votes met


def _item(user: str, trial: int, reward: float, outcome: str = "passed", failure: str | None = None) -> ItemResult:
    rubrics = [RubricVerdict(text="r", met=None if failure else reward == 1.0, judge_failure=failure)]
    return ItemResult(nodeid=f"t::{user}::s1[none-t{trial}]", user_id=user, subtask_id="s1", domain="delivery",
                      memory="none", trial=trial, reward=reward, outcome=outcome,
                          rubrics=rubrics)  # type: ignore[arg-type]


def test_unscored_items_are_left_out_of_the_metrics_and_counted_in_their_own_column():
    results = [_item("U1", 0, 1.0), _item("U1", 1, 0.0, "skipped", "unreadable"),
               _item("U2", 0, 0.0, "failed"), _item("U2", 1, 1.0)]
    assert results[1].unscored and not results[2].unscored
    metrics = compute_metrics(results)["none"]
    assert metrics["k"] == 2  # the unscored trial was run: K stays the trials' number
    sub = metrics["subtask"]
    # U1's unit has one scored trial of K=2: left out (not scored 0 as short); U2 counts alone
    assert sub["n_units"] == 1 and sub["avg@2"] == 0.5 and sub["n_short"] == 0 and sub["n_unscored"] == 1
    assert metrics["n_skipped"] == 0
    lines = render_table(compute_metrics(results), results)
    assert lines[1].split()[-1] == "unscored" and lines[2].split()[-1] == "1"
    assert any(line.startswith("judge failures: 1 rubric(s) in 1 item(s)") and "1 item(s) unscored" in line
               for line in lines)
    # without judge failures the table keeps its columns
    clean = [_item("U1", 0, 1.0), _item("U1", 1, 1.0)]
    assert "unscored" not in render_table(compute_metrics(clean), clean)[1]


def test_the_official_profile_sets_zero_and_the_switch_wins(tmp_path):
    def config(**options):
        return Benchmark(options, rootdir=tmp_path, state_dir=str(tmp_path / "llm")).config

    assert config().judge_failures == "unscored"
    assert config(vita_profile="official").judge_failures == "zero"
    assert config(vita_profile="official", vita_deviation="judge-failures=unscored").judge_failures == "unscored"
    with pytest.raises(ValueError, match="--vita-deviation judge-failures must be one of unscored, zero, got 'never'"):
        config(vita_deviation="judge-failures=never")


def test_an_unreadable_outcome_judge_is_a_judge_failure_too(stub):
    from pytest_vitabench.judges import make_judge

    stub.replies += [verdicts(True, True), {"content": "nope"}, {"content": "nope"}]
    verdict = make_judge("m", client=client_for(stub), mode="full", outcome=True).judge(case())
    assert verdict.unscored is not None and verdict.rubrics[-1].judge_failure
    stub.replies += [verdicts(True, True), {"content": "nope"}, {"content": "nope"}]
    zero = make_judge("m", client=client_for(stub), mode="full", outcome=True, failures="zero").judge(case(seed=9))
    assert zero.reward == 0.0 and zero.unscored is None  # the official outcome judge scores an unreadable reply 0
