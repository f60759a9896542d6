"""The validator passes a generated suite and catches each kind of suite broken on purpose."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_vitabench.commands.cli import main
from pytest_vitabench.suite.loader import load_suite
from pytest_vitabench.synth.validator import RULES, Limits, validate_loaded

CONTAINERS = ("stores", "shops", "hotels", "trains", "flights", "attractions")


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _check(tmp_path: Path, data: Any, strict: bool = True, limits: Limits | None = None):
    return validate_loaded(load_suite(_write(tmp_path / "suite.json", data), strict=strict), limits)


def _entities(sub: dict[str, Any]) -> dict[str, dict[str, Any]]:
    env = sub["environment"]
    return next(env[c] for c in CONTAINERS if env.get(c))


def _first(suite: list[dict[str, Any]], kind: str = "delivery") -> dict[str, Any]:
    return next(s for u in suite for s in u["subtasks"] if s["domain"] == kind and not s["user_intention"])


def test_a_generated_suite_passes_every_rule(tmp_path, small_suite):
    report = _check(tmp_path, small_suite)
    assert report.ok, report.summary()
    assert all(report.checked[rule] for rule in RULES)
    assert not report.unchecked


def test_schema_catches_a_rubric_without_its_check(tmp_path, small_copy):
    sub = _first(small_copy)
    sub["rubric_checks"].pop(0)
    report = _check(tmp_path, small_copy)
    schema = [f.message for f in report.findings if f.rule == "schema"]
    assert len(schema) == 1 and "rubric without a machine check" in schema[0]


def test_chronology_catches_an_interaction_after_its_subtask(tmp_path, small_copy):
    sub = small_copy[0]["subtasks"][1]
    record = sub["interactions"][-1]
    key = "date" if "date" in record else "timestamp"
    record[key] = sub["current_time"] + record[key][10:]
    report = _check(tmp_path, small_copy, strict=False)
    assert {f.rule for f in report.findings} == {"chronology"}


def test_target_catches_a_second_option_that_meets_every_rubric(tmp_path, small_copy):
    sub = _first(small_copy)
    # A distractor merchant's product becomes acceptable to every rubric: two answers.
    other = next(e for e in _entities(sub).values() if e.get("store_type") == "distraction")
    pid, eid = other["products"][0]["product_id"], other["store_id"]
    for item in sub["rubric_checks"]:
        where = item["check"].get("where", {})
        if "product_ids" in where:
            where["product_ids"]["subset_of"].append(pid)
        if "entity_id" in where:
            where["entity_id"]["in"].append(eid)
    report = _check(tmp_path, small_copy)
    assert any(f.rule == "target" and "2 options meet every record check" in f.message for f in report.findings)


def test_target_catches_a_wrong_target_annotation(tmp_path, small_copy):
    sub = _first(small_copy)
    sub["target_product_ids"] = ["P-not-the-answer"]
    report = _check(tmp_path, small_copy)
    assert any(f.rule == "target" and "not the marked target" in f.message for f in report.findings)


def test_distractors_catches_too_few_merchants_and_a_best_rated_target(tmp_path, small_copy):
    sub = _first(small_copy)
    entities = _entities(sub)
    for key in [k for k, e in entities.items() if e.get("store_type") == "distraction"][6:]:
        del entities[key]
    target = next(e for e in entities.values() if e.get("store_type") == "target")
    target["score"] = 5.0
    report = _check(tmp_path, small_copy)
    messages = [f.message for f in report.findings if f.rule == "distractors"]
    assert any("merchants, expected 10-15" in m for m in messages)
    assert any("best rated" in m for m in messages)
    assert not report.failed() and report.failed(strict=True), "complexity controls fail only with --strict"


def test_distractors_catches_missing_one_off_distractors(tmp_path, small_copy):
    report = _check(tmp_path, small_copy)
    assert report.ok
    report = _check(tmp_path, small_copy, limits=Limits(one_off_min=50))
    assert any("options break just" in f.message for f in report.findings)


def test_evidence_catches_a_preference_the_history_never_shows(tmp_path, small_copy):
    user = small_copy[0]
    index, sub = next((i, s) for i, s in enumerate(user["subtasks"])
                      if s["user_scenario"]["personalized_preference_memory"]["rubric_sources"])
    phrase = sub["user_scenario"]["personalized_preference_memory"]["rubric_sources"][0]["phrases"][0]
    for earlier in user["subtasks"][: index + 1]:
        earlier["interactions"] = [r for r in earlier["interactions"] if phrase.lower() not in json.dumps(r).lower()]
        earlier["user_scenario"]["personalized_preference_memory"]["history_noise"] = []
    report = _check(tmp_path, small_copy)
    assert any(f.rule == "evidence" and phrase in f.message for f in report.findings)


def test_leaks_catch_a_reason_in_a_tag_and_an_intention_in_the_request(tmp_path, small_copy):
    sub = _first(small_copy)
    product = next(p for e in _entities(sub).values() for p in e["products"] if p.get("distraction_reason"))
    product["tags"].append(product["distraction_reason"])
    proactive = next(s for u in small_copy for s in u["subtasks"] if s["user_intention"])
    proactive["instruction"] += " " + proactive["user_intention"]
    report = _check(tmp_path, small_copy)
    messages = [f.message for f in report.findings if f.rule == "leaks"]
    assert any("distraction reason" in m and "tools" in m for m in messages)
    assert any("user_intention" in m for m in messages)


def test_profile_catches_an_order_of_the_users_own_allergen(tmp_path, small_copy):
    user = next(u for u in small_copy if u["user_profile"]["allergies"] != "none")
    allergen = user["user_profile"]["allergies"]
    sub = user["subtasks"][-1]
    sub["interactions"].insert(0, {"date": sub["start_date"], "dialogue": [], "behavior": [
        {"behavior_type": "order", "content": {"merchant_name": "X", "tags": [allergen], "items": []}}]})
    sub["user_scenario"]["personalized_preference_memory"]["history_noise"] = []
    report = _check(tmp_path, small_copy)
    assert any(f.rule == "profile" and allergen in f.message for f in report.findings)


def test_official_shape_is_validated_and_says_what_it_could_not_check(tmp_path, small_copy):
    for user in small_copy:
        for sub in user["subtasks"]:
            sub.pop("rubric_checks")
            for key in ("tag_ids", "rubric_sources", "history_noise"):
                sub["user_scenario"]["personalized_preference_memory"].pop(key)
    report = _check(tmp_path, small_copy)
    assert not report.failed()
    assert {"schema", "target", "distractors", "evidence"} <= set(report.unchecked)
    lines = "\n".join(report.summary())
    assert "not checked" in lines and report.checked["leaks"] and report.checked["chronology"]


@pytest.mark.parametrize("bad", ["[]", "{}", "not json"])
def test_unusable_files_fail_to_load(tmp_path, capsys, bad):
    (tmp_path / "bad.json").write_text(bad)
    assert main(["validate", str(tmp_path / "bad.json")]) == 1
    assert "invalid VitaBench suite" in capsys.readouterr().out
