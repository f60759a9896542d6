"""The item runner: memory built from the interactions of earlier subtasks only, in any order."""

from __future__ import annotations

import copy

from _suites import tiny_suite, write_suite

from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.runner import ItemRunner, agent_profile
from pytest_vitabench.suite.schema import UserTask


def _suite_with_histories(tmp_path):
    data = copy.deepcopy(tiny_suite())
    data[0]["subtasks"][0]["interactions"] = [{"date": "2025-05-01", "behavior": [], "dialogue": [
        {"role": "user", "content": "FIRST-HISTORY"}]}]
    data[0]["subtasks"][1]["interactions"] = [{"date": "2025-06-02", "behavior": [], "dialogue": [
        {"role": "user", "content": "SECOND-HISTORY"}]}]
    return write_suite(tmp_path / "tasks.json", data)


def test_memory_of_a_subtask_holds_exactly_the_earlier_interactions_in_any_order(tmp_path):
    runner = ItemRunner(RunConfig(memory=["full_context"]))
    suite = runner.suite(_suite_with_histories(tmp_path))
    user = suite.users[0]
    second = runner.memory_for(suite, user, 1, "full_context", trial=0).read()
    assert "FIRST-HISTORY" in second and "SECOND-HISTORY" in second
    first = runner.memory_for(suite, user, 0, "full_context", trial=0).read()  # rebuilt, not reused
    assert "FIRST-HISTORY" in first and "SECOND-HISTORY" not in first
    again = runner.memory_for(suite, user, 1, "full_context", trial=0).read()
    assert again == second


def test_groundtruth_memory_follows_the_subtask(tmp_path):
    runner = ItemRunner(RunConfig(memory=["groundtruth"]))
    suite = runner.suite(_suite_with_histories(tmp_path))
    text = runner.memory_for(suite, suite.users[0], 1, "groundtruth", trial=3).read()
    assert "no cilantro" in text


def test_suites_are_loaded_once_per_process(tmp_path):
    runner = ItemRunner(RunConfig())
    path = _suite_with_histories(tmp_path)
    assert runner.suite(path) is runner.suite(path)


def test_vitabench1_profile_hides_the_users_constraints():
    task = UserTask.model_validate({
        "id": "T1", "user_id": "U1", "source_format": "vitabench1",
        "user_profile": {"user id": "U1", "home address": "A", "dietary restrictions": "no pork",
                         "personality": "impatient"},
        "subtasks": tiny_suite()[1]["subtasks"]})
    assert agent_profile(task) == {"user id": "U1", "home address": "A"}
