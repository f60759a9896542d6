"""Unit tests of the CI outputs: exit policy, step summary markdown, annotations, progress, JUnit, names."""

from __future__ import annotations

import json

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.judges.base import RubricVerdict
from pytest_vitabench.judges.naming import entity_names, with_names
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.options.fail_under import parse_fail_under
from pytest_vitabench.report.github import error_annotation, error_annotations, step_summary, worst_subtasks
from pytest_vitabench.report.outcome import GateInputs, VitaExit, explain, gated_exit_status
from pytest_vitabench.report.progress import Progress, large_suite_files, parse_interval
from pytest_vitabench.report.thresholds import check_thresholds
from pytest_vitabench.result import ItemResult


def item(user, subtask, trial, reward, outcome=None, unmet="", error=None, memory="m"):
    outcome = outcome or ("passed" if reward == 1.0 else "failed")
    rubrics = [RubricVerdict(text=unmet, met=False, reason="because")] if unmet else []
    return ItemResult(nodeid=f"x::{user}::{subtask}[{memory}-t{trial}]", user_id=user, subtask_id=subtask,
                      domain="delivery", memory=memory, trial=trial, reward=reward, outcome=outcome, rubrics=rubrics,
                      error=error)


RESULTS = [item("U1", "s1", t, 1.0) for t in range(2)] + [
    item("U1", "s2", 0, 0.0, unmet="The tea has less sugar"), item("U1", "s2", 1, 1.0),
    item("U2", "s1", 0, 0.0, unmet="The seats are second class"),
    item("U2", "s1", 1, 0.0, "error", error="LLMError: x")]


@pytest.mark.parametrize(("pytest_status", "found", "expected"), [
    (1, GateInputs(), VitaExit.OK),  # failed items alone never fail a gated run
    (0, GateInputs(missed_thresholds=("a",)), VitaExit.GATE_FAILED),
    (1, GateInputs(gate_failures=("regression",)), VitaExit.GATE_FAILED),
    (1, GateInputs(other_failures=1), VitaExit.GATE_FAILED),
    (1, GateInputs(missed_thresholds=("a",), infrastructure_errors=2), VitaExit.INFRASTRUCTURE),
    (2, GateInputs(infrastructure_errors=2), VitaExit.INTERRUPTED),
    (4, GateInputs(), VitaExit.USAGE_ERROR),
    (5, GateInputs(missed_thresholds=("no results",)), VitaExit.NO_TESTS_COLLECTED),
])
def test_exit_policy(pytest_status, found, expected):
    assert gated_exit_status(pytest_status, found) == expected


def test_explain_names_the_cause():
    assert explain(6, GateInputs(infrastructure_errors=3)).startswith(
        "exit status 6 (infrastructure errors): 3 item(s)")
    assert explain(1, GateInputs(missed_thresholds=("a", "b"), gate_failures=("r",))) == (
        "exit status 1 (gate failed): 2 threshold(s) missed, 1 gate failure(s)")


def test_worst_subtasks_lowest_reward_first_with_the_most_frequent_unmet_rubric():
    rows = worst_subtasks(RESULTS)
    assert [(r["user_id"], r["subtask_id"]) for r in rows] == [("U2", "s1"), ("U1", "s2")]
    assert rows[0]["errors"] == 1 and rows[0]["unmet"] == "The seats are second class"
    assert rows[1]["passed"] == 1 and rows[1]["trials"] == 2


def test_step_summary_sections():
    metrics = compute_metrics(RESULTS, bootstrap=0)
    outcomes = check_thresholds(parse_fail_under("avg=0.9,pass^4=0.1"), metrics, RESULTS)
    text = step_summary(metrics, RESULTS, config={"model": "gpt-4.1", "trials": 2}, thresholds=outcomes,
                        regressions=["U1/s2 full_context: 1.00 -> 0.50", {"unit": "U2/s1", "delta": "-0.5 | big"}],
                        verdict="exit status 1 (gate failed): 1 threshold(s) missed")
    assert text.startswith("## VitaBench results\n\n**exit status 1 (gate failed)")
    assert "model `gpt-4.1`, trials `2`" in text
    assert "| memory | level | Avg@2 | Pass@2 | Pass^2 | units | errors |" in text
    assert "| `avg@k=0.9` | m | 0.500 | **missed**" in text
    assert "| `pass^4=0.1` | m | - | not checked: threshold pass^4=0.1 not checked" in text
    assert "### Regressions against the baseline\n\n- U1/s2 full_context: 1.00 -> 0.50\n| unit | delta |" in text
    assert "| U2/s1 | -0.5 \\| big |" in text  # a pipe inside a cell is escaped
    assert "items: 3 passed, 2 failed, 1 error, 0 skipped" in text
    assert "None." in step_summary(metrics, RESULTS, regressions=[])  # a baseline with no regressions says so


def test_annotations_are_escaped_workflow_commands():
    assert error_annotation("50% of a\nb") == "::error title=VitaBench threshold missed::50%25 of a%0Ab"
    assert error_annotation("x", title="a: b, c") == "::error title=a%3A b%2C c::x"
    lines = error_annotations(["m avg = 0.1 < 0.2"], ["regressed"], 2)
    assert lines == ["::error title=VitaBench threshold missed::m avg = 0.1 < 0.2",
                     "::error title=VitaBench gate failed::regressed",
                     "::error title=VitaBench infrastructure errors::2 item(s) ended in an infrastructure error; the "
                     "scores are incomplete"]


def test_progress_counts_eta_and_interval():
    now = [100.0]
    progress = Progress(interval_s=10, clock=lambda: now[0])
    progress.plan(4)
    assert not progress.due()
    now[0] = 110.0
    progress.add(item("U1", "s1", 0, 1.0).model_dump(mode="json"))
    usage = {"agent": {"prompt_tokens": 1000, "completion_tokens": 234, "cost": 0.5}}
    progress.add({"outcome": "error", "reward": 0.0, "usage": usage})
    assert progress.due() and not progress.due()  # once per interval
    assert progress.line() == ("vitabench: 2/4 items (50.0%), 10s elapsed, ETA 10s, Avg 0.500, 1,234 tokens, "
                               "$0.5000, 1 error")
    progress.add({"outcome": "skipped"})
    assert "Avg 0.500" in progress.line()  # skipped items are not scored
    assert Progress(interval_s=None).due() is False


def test_progress_interval_option():
    assert parse_interval("auto", tty=True) == 10 and parse_interval(None, tty=False) == 60
    assert parse_interval("off", tty=True) is None and parse_interval("0", tty=True) is None
    assert parse_interval("2.5", tty=False) == 2.5
    for bad in ("often", "-1"):
        with pytest.raises(ValueError, match="--vita-progress"):
            parse_interval(bad, tty=True)


def test_large_suite_files_are_found_in_files_and_directories(tmp_path):
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "tasks.json").write_bytes(b"[]" + b" " * 2000)
    (tmp_path / "suite" / "small.vita.json").write_text("[]")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "tasks.json").write_bytes(b" " * 5000)
    patterns = ["tasks.json", "*.vita.json"]
    assert large_suite_files(["suite"], tmp_path, patterns, min_bytes=1000) == [("suite/tasks.json", 2002)]
    by_node_id = large_suite_files(["suite/tasks.json::U1"], tmp_path, patterns, min_bytes=1000)
    assert by_node_id == [("suite/tasks.json", 2002)]
    assert large_suite_files(["missing", "suite/small.vita.json"], tmp_path, patterns, min_bytes=1000) == []


def test_names_beside_ids_on_the_demo_suite():
    data = json.loads((REPO_ROOT / "suites" / "demo" / "tasks.json").read_text())
    env = next(s["environment"] for u in data for s in u["subtasks"] if s["environment"].get("trains"))
    names = entity_names(env)
    train_id, train = next(iter(env["trains"].items()))
    seat = train["products"][0]
    assert names[train_id] == train["train_number"]
    assert names[seat["product_id"]] == f"{train['train_number']} {seat['seat_type']}"
    text = f"train O1 at {train_id}: product_ids is ['{seat['product_id']}'], only [] allowed"
    assert with_names(text, names) == (f"train O1 at {train_id} ({train['train_number']}): product_ids is "
                                       f"['{seat['product_id']}' ({names[seat['product_id']]})], only [] allowed")
    # hidden markers never become labels
    assert not any("distraction" in label or "target" == label for label in names.values())


def test_with_names_leaves_longer_ids_and_unknown_text_alone():
    names = {"S1": "Noodle Bar", "P1": "Beef noodles"}
    assert with_names("at S10 and S1, P1x, 'P1'", names) == "at S10 and S1 (Noodle Bar), P1x, 'P1' (Beef noodles)"
    assert with_names("nothing here", names) == "nothing here" and with_names("S1", {}) == "S1"


def test_junit_and_progress_show_cached_prompt_tokens():
    from pytest_vitabench.messages import Usage
    from pytest_vitabench.report.junit import item_properties

    record = item("U1", "s1", 0, 1.0).model_copy(update={"usage": {
        "agent": Usage(prompt_tokens=3000, cached_prompt_tokens=2048, requests=2),
        "judge": Usage(prompt_tokens=1000, cached_prompt_tokens=0, requests=1)}})
    assert dict(item_properties(record))["vita_cached_prompt_tokens"] == 2048
    progress = Progress(interval_s=10, clock=lambda: 0.0)
    progress.add(record.model_dump(mode="json"))
    assert "4,000 tokens (51% of prompt cached), $0.0000" in progress.line()
    progress = Progress(interval_s=10, clock=lambda: 0.0)
    progress.add({"outcome": "passed", "reward": 1.0, "usage": {"agent": {"prompt_tokens": 5}}})
    assert "cached" not in progress.line()  # a provider that reports no cache: the line stays as it was
