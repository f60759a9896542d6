"""``vitabench rejudge``: saved trajectories scored again, the environment replayed, failures kept failures."""

from __future__ import annotations

import json
import shutil

import pytest
from _stub_llm import StubLLM
from _suites import tiny_suite, write_suite

from pytest_vitabench.commands.cli import build_parser
from pytest_vitabench.commands.command import run_config
from pytest_vitabench.commands.rejudge import RejudgeError, rejudge_report
from pytest_vitabench.judges import make_judge
from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.messages import Message, ToolCall
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.report.json_report import build_report, load_report, write_report
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.runs import open_run
from pytest_vitabench.users import make_user_simulator

ADDRESS = "No. 1 Test Road, Home"


class OrderingAgent:
    """Orders ``product`` at once (and pays for it when ``pay``), then stops: a deterministic test agent."""

    def __init__(self, product: str, pay: bool = True):
        self.product, self.pay = product, pay

    def respond(self, setup, messages):
        calls = [c for m in messages if m.role == "assistant" for c in m.tool_calls or []]
        tools = [m for m in messages if m.role == "tool"]
        if not calls:
            store = "S2" if self.product == "P2" else "S1"
            args = {"user_id": "U1", "store_id": store,
                    "product_ids": [self.product], "product_cnts": [1], "address": ADDRESS,
                    "dispatch_time": setup.time[:19]}
            return Message(role="assistant", tool_calls=[ToolCall(id="c1", name="create_delivery_order",
                                                                   arguments=args)])
        if self.pay and len(calls) == 1 and not tools[-1].error:
            order_id = json.loads(tools[-1].content)["order_id"]
            return Message(role="assistant", tool_calls=[ToolCall(id="c2", name="pay_delivery_order",
                                                                  arguments={"order_id": order_id})])
        return Message(role="assistant", content="All done. ###STOP###")


#: (user index, subtask index, trial, agent): U1/s1 passes once of two, U1/s2 once of two, U2/s1 never.
PLAN = [(0, 0, 0, OrderingAgent("P2")), (0, 0, 1, OrderingAgent("P1")),
        (0, 1, 0, OrderingAgent("P2", pay=False)), (0, 1, 1, OrderingAgent("P2")),
        (1, 0, 0, OrderingAgent("P1")), (1, 0, 1, OrderingAgent("P2", pay=False))]


@pytest.fixture
def saved(tmp_path):
    """A saved run (report written like the plugin writes it) with passes and failures."""
    suite_path = write_suite(tmp_path / "tasks.json", tiny_suite())
    config = RunConfig(trials=2, memory=["none"])
    runner = ItemRunner(config)
    suite = runner.suite(suite_path)
    results = []
    for user_index, index, trial, agent in PLAN:
        user = suite.users[user_index]
        sub = user.task.subtasks[index]
        agent_for_user = _AsUser(agent, user.task.user_id)
        results.append(runner.run(
            nodeid=f"{suite_path.name}::{user.key}::{sub.subtask_id}[none-t{trial}]", suite=suite, user=user,
            index=index, memory_name="none", trial=trial, agent=agent_for_user,
            user_simulator=make_user_simulator("scripted"), judge=make_judge("rules")))
    assert [r.reward for r in results] == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    manifest = {**config.manifest(), "suites": {str(suite_path): suite.sha256}}
    report_path = write_report(tmp_path / "run.json", build_report(manifest, compute_metrics(results), results))
    return report_path, suite_path


class _AsUser:
    """Signs the wrapped agent's calls as ``user_id`` (U2's environment refuses U1)."""

    def __init__(self, agent, user_id):
        self.agent, self.user_id = agent, user_id

    def respond(self, setup, messages):
        message = self.agent.respond(setup, messages)
        for call in message.tool_calls or []:
            if "user_id" in call.arguments:
                call.arguments["user_id"] = self.user_id
        return message


def test_rules_rejudge_reproduces_the_run_exactly_and_keeps_failures(saved):
    report_path, _ = saved
    original = load_report(report_path)
    new = rejudge_report(report_path, make_judge("rules"))
    assert [r["reward"] for r in new["results"]] == [r["reward"] for r in original["results"]]
    assert sorted(r["reward"] for r in new["results"]) == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]  # not all 1.0
    assert new["metrics"] == original["metrics"]
    assert new["metrics"]["none"]["subtask"]["avg@2"] == pytest.approx(2 / 6)
    assert new["rejudged_from"]["replay_mismatches"] == {} and new["rejudged_from"]["report"] == str(report_path)
    assert new["schema"] == original["schema"] and new["config"]["suites"] == original["config"]["suites"]


def test_llm_rejudge_scores_each_subtask_against_its_own_rubrics(saved, tmp_path):
    report_path, _ = saved
    data = load_report(report_path)
    data["results"][0]["termination"] = "max_steps"  # scored 0 without a judge call
    data["results"][5]["outcome"], data["results"][5]["error"] = "error", "LLMError: boom"  # kept as it was
    write_report(report_path, data)
    stub = StubLLM()
    try:
        # results are judged in report order; the judge sees through two of the four remaining items
        replies = [[True, False], [True, True], [True, True], [False, True]]
        stub.replies += [{"content": json.dumps([{"rubric_idx": i, "met": m, "justification": f"j{i}"}
                                                 for i, m in enumerate(mets, 1)])} for mets in replies]
        client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", cache="off"))
        judge = make_judge("judge-m", client=client, mode="full")
        new = rejudge_report(report_path, judge, ledger=client.ledger,
                             judge_config={"judge_model": "judge-m", "judge_mode": "full"})
    finally:
        stub.close()
    assert len(stub.requests) == 4
    rewards = [r["reward"] for r in new["results"]]
    outcomes = [r["outcome"] for r in new["results"]]
    assert rewards == [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    assert outcomes == ["failed", "failed", "passed", "passed", "failed", "error"]
    assert new["results"][1]["rubrics"][0] == {"text": "The order is for product P2", "met": True, "reason": "j1",
                                               "kind": "rubric"}
    assert new["results"][1]["usage"]["judge"]["requests"] == 1
    assert new["results"][0]["usage"].get("judge", {}).get("requests", 0) == 0
    assert new["config"]["judge_model"] == "judge-m" and new["rejudged_from"]["judge_model"] == "rules"
    assert new["rejudged_from"]["kept_errors"] == [data["results"][5]["nodeid"]]
    # the transcript the judge saw is the saved one, with the replayed order as a fact
    assert "[2] user: Order me a bowl of noodles" in stub.requests[0]["messages"][1]["content"]
    assert '"status": "paid"' in stub.requests[0]["messages"][1]["content"]


def test_a_changed_or_missing_suite_is_refused_and_a_moved_one_is_found(saved, tmp_path):
    report_path, suite_path = saved
    moved = tmp_path / "elsewhere" / "renamed.json"
    moved.parent.mkdir()
    shutil.copy(suite_path, moved)
    data = tiny_suite()
    data[0]["subtasks"][0]["evaluation_criteria"]["overall_rubrics"] = ["Something else"]
    write_suite(suite_path, data)
    with pytest.raises(RejudgeError, match="changed since the run"):
        rejudge_report(report_path, make_judge("rules"))
    assert len(rejudge_report(report_path, make_judge("rules"), suite_paths=[moved])["results"]) == 6
    suite_path.unlink()
    with pytest.raises(RejudgeError, match="not found; pass its current location with --suite"):
        rejudge_report(report_path, make_judge("rules"))


def test_replay_differences_are_reported(saved):
    report_path, _ = saved
    data = load_report(report_path)
    # schema /2 keeps trajectories in the run directory; an inline trajectory takes precedence over it
    data["results"][0]["messages"] = open_run(report_path).messages(data["results"][0]["nodeid"])
    tool = next(m for m in data["results"][0]["messages"] if m["role"] == "tool")
    tool["content"] = tool["content"].replace("Quiet Noodles", "Tampered Noodles")
    write_report(report_path, data)
    new = rejudge_report(report_path, make_judge("rules"))
    problems = new["rejudged_from"]["replay_mismatches"][data["results"][0]["nodeid"]]
    assert len(problems) == 1 and "create_delivery_order" in problems[0] and "Tampered" in problems[0]


def test_cli_subcommand(saved, tmp_path, capsys):
    report_path, _ = saved
    parser = build_parser()
    out = tmp_path / "again.json"
    args = parser.parse_args(["rejudge", str(report_path), "--vita-judge-model", "rules", "-o", str(out)])
    assert args.func(args) == 0
    assert load_report(out)["rejudged_from"]["items"] == 6
    assert f"wrote {out}" in capsys.readouterr().out
    args = parser.parse_args(["rejudge", str(report_path), "--vita-judge-model", "gpt-x", "--vita-judge-args",
                              "votes=2",
                              "--vita-base-url", "http://127.0.0.1:9/v1", "--vita-judge-args", "outcome-reward"])
    options = run_config(args)  # the run's settings, read as pytest reads them
    assert options.judge_votes == 2 and options.outcome_reward and options.judge_model == "gpt-x"
    args = parser.parse_args(["rejudge", str(tmp_path / "nope.json")])
    assert args.func(args) == 2 and "nope.json" in capsys.readouterr().err
