"""Suite loading: the official format, VitaBench 1.0 files, .gz, and one test per bad-input case."""

from __future__ import annotations

import gzip
import json

import pytest
from _paths import VB1_DIR, VB1_SKIP_REASON
from _suites import broken, tiny_suite, write_suite

from pytest_vitabench.suite.loader import SuiteError, json_path, load_suite


def _errors(suite):
    return {user.key: user.error.render() for user in suite.users if user.error is not None}


def test_official_suite_loads_every_field(tmp_path):
    data = tiny_suite()
    data[0]["subtasks"][0].update(task_turn_num="U1_01", start_date="2025-01-01", end_date="2025-05-31",
                                  historical_chat=["hi"], task="delivery-lunch")
    suite = load_suite(write_suite(tmp_path / "tasks.json", data))
    assert not _errors(suite)
    sub = suite.users[0].task.subtasks[0]
    assert (sub.task_turn_num, sub.start_date, sub.end_date, sub.historical_chat, sub.task) == (
        "U1_01", "2025-01-01", "2025-05-31", ["hi"], "delivery-lunch")
    assert sub.target_product_ids == ["P2"] and sub.current_time == "2025-06-01"
    assert suite.format == "vitabench2" and len(suite.sha256) == 64


def test_both_interaction_shapes(tmp_path):
    data = tiny_suite()
    data[0]["subtasks"][0]["interactions"].append(
        {"type": "review", "timestamp": "2025-05-02 13:00:00", "content": {"rating": 5, "text": "great"}})
    suite = load_suite(write_suite(tmp_path / "tasks.json", data))
    kinds = [type(r).__name__ for r in suite.users[0].task.subtasks[0].interactions]
    assert kinds == ["DailyRecord", "EventRecord"]


def test_gzip_suite(tmp_path):
    path = tmp_path / "x.vita.json.gz"
    path.write_bytes(gzip.compress(json.dumps(tiny_suite()).encode()))
    assert [u.key for u in load_suite(path).users] == ["U1", "U2"]


def test_unknown_keys_are_kept_and_reported_once(tmp_path):
    data = tiny_suite()
    for user in data:
        user["vip_level"] = 3
        for sub in user["subtasks"]:
            sub["mystery"] = True
    suite = load_suite(write_suite(tmp_path / "tasks.json", data))
    assert len(suite.warnings) == 1
    assert "vip_level (2x)" in suite.warnings[0] and "subtasks.mystery (3x)" in suite.warnings[0]
    assert suite.users[0].task.model_extra["vip_level"] == 3


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not valid JSON: expecting property name enclosed in double quotes at line 1 column 2"),
    ('{"id": "U1"}', "expected a JSON list of tasks, got dict"),
    ("[]", "the suite holds no tasks"),
])
def test_unusable_file_is_one_clear_error(tmp_path, content, fragment):
    path = tmp_path / "tasks.json"
    path.write_text(content)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert fragment in info.value.render() and str(path) in info.value.render()


@pytest.mark.parametrize("mutate, key, where, fragment", [
    (lambda d: d[0]["subtasks"][1].pop("instruction"), "U1", "[0].subtasks[1].instruction",
     "required field is missing"),
    (lambda d: d[0]["subtasks"][0].update(interactions="many"), "U1", "[0].subtasks[0].interactions",
     "valid list"),
    (lambda d: d[1]["subtasks"][0].update(domain="pharmacy"), "U2", "[1].subtasks[0].domain",
     "unknown domain 'pharmacy'"),
    (lambda d: d[0].update(subtasks=[]), "U1", "[0].subtasks", "at least 1 item"),
    (lambda d: d[0]["subtasks"][1].update(subtask_id="s1"), "U1", "[0].subtasks[1].subtask_id",
     "duplicate subtask id 's1'"),
    (lambda d: d[1].update(id="U1"), "U1", "[1].id", "duplicate user id 'U1'"),
    (lambda d: (d[0]["subtasks"][0]["environment"].update(time=""), d[0]["subtasks"][0].pop("current_time")),
     "U1", "[0].subtasks[0].environment.time", "blank environment time and no current_time"),
    (lambda d: d[0]["subtasks"][0]["environment"]["stores"]["S1"].update(score="five stars"), "U1",
     "[0].subtasks[0].environment.stores.S1.score", "valid number"),
    (lambda d: d[0]["subtasks"][0]["rubric_checks"][0]["check"].update(kind="vibes"), "U1",
     "[0].subtasks[0].rubric_checks[0].check", "vibes"),
])
def test_bad_user_fails_alone_with_its_json_path(tmp_path, mutate, key, where, fragment):
    suite = load_suite(write_suite(tmp_path / "tasks.json", broken(mutate)))
    errors = _errors(suite)
    assert set(errors) == {key}, errors
    assert f"at {where}" in errors[key] and fragment in errors[key], errors[key]
    assert "Traceback" not in errors[key]
    assert any(user.task is not None for user in suite.users)  # the other user still loads


def test_blank_time_falls_back_to_current_time_with_a_warning(tmp_path):
    suite = load_suite(write_suite(tmp_path / "tasks.json",
                                   broken(lambda d: d[0]["subtasks"][0]["environment"].update(time=""))))
    assert not _errors(suite)
    assert suite.users[0].times[0] == "2025-06-01 12:00:00"
    assert any("[0].subtasks[0].environment.time is blank" in w for w in suite.warnings)


def _out_of_order(data):
    data[0]["subtasks"][1]["environment"]["time"] = "2025-05-01 11:00:00"
    data[0]["subtasks"][0]["interactions"].insert(0, {"date": "2025-05-20", "behavior": [], "dialogue": []})


def test_chronology_is_a_warning_by_default_and_an_error_when_strict(tmp_path):
    path = write_suite(tmp_path / "tasks.json", broken(_out_of_order))
    lenient = load_suite(path)
    assert not _errors(lenient)
    assert any("[0].subtasks[1].environment.time" in w and "before the previous" in w for w in lenient.warnings)
    assert any("[0].subtasks[0].interactions[1]" in w for w in lenient.warnings)
    strict = load_suite(path, strict=True)
    assert "before the previous subtask" in _errors(strict)["U1"]


def test_not_a_task_at_all(tmp_path):
    suite = load_suite(write_suite(tmp_path / "tasks.json", [*tiny_suite(), {"hello": "world"}, 7]))
    errors = _errors(suite)
    assert "neither a VitaBench 2.0 user" in errors["#2"] and "expected an object, got int" in errors["#3"]


def test_json_path_rendering():
    assert json_path(("subtasks", 7, "environment", "time"), "[3]") == "[3].subtasks[7].environment.time"


@pytest.mark.skipif(not VB1_DIR.is_dir(), reason=VB1_SKIP_REASON)
@pytest.mark.parametrize("language", ["en", "zh"])
def test_vitabench1_tasks_become_one_subtask_users(language):
    suite = load_suite(VB1_DIR / f"delivery_tasks_{language}.json")
    assert suite.format == "vitabench1" and len(suite.users) == 100 and not _errors(suite)
    task = suite.users[0].task
    sub = task.subtasks[0]
    assert len(task.subtasks) == 1 and sub.domain == "delivery" and sub.instruction
    # the 1.0 behaviour profile feeds memory as a history record, never the environment
    assert "user_historical_behaviors" not in sub.environment
    assert sub.interactions and sub.interactions[0].type == "behavior_summary"
    assert sub.evaluation_criteria.required_orders()


@pytest.mark.skipif(not VB1_DIR.is_dir(), reason=VB1_SKIP_REASON)
def test_vitabench1_errors_use_the_1_0_layout(tmp_path):
    data = json.loads((VB1_DIR / "delivery_tasks_en.json").read_text())[:2]
    del data[1]["instructions"]
    data[0]["environment"]["stores"] = "none"
    suite = load_suite(write_suite(tmp_path / "vb1.json", data))
    errors = list(_errors(suite).values())
    assert len(errors) == 2
    assert any("at [0].environment.stores" in e for e in errors)
    assert any("at [1]: neither" in e or "[1].instructions" in e for e in errors)
