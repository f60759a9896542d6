"""The demo suite (``synth/specs/demo.json`` expanded by ``synth/curated.py``): deterministic, committed,
official-format, and a fair test of preferences."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.domains import validate_environment
from pytest_vitabench.judges.rules import run_check
from pytest_vitabench.suite.checks import RECORD_FIELDS, RecordCheck, RubricCheck, TextCheck
from pytest_vitabench.suite.schema import UserTask
from pytest_vitabench.synth.curated import DEMO_INDENT, DEMO_SPEC, build_demo_suite
from pytest_vitabench.synth.generator import dumps, write
from pytest_vitabench.synth.spec import MaxPriceDimension, MinScoreDimension, load_spec

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
CONTAINERS = ("stores", "shops", "hotels", "trains", "flights", "attractions")


@pytest.fixture(scope="module")
def suite() -> list[dict[str, Any]]:
    return build_demo_suite()


def _subtasks(suite: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(user, sub) for user in suite for sub in user["subtasks"]]


def _entities(sub: dict[str, Any]) -> list[dict[str, Any]]:
    env = sub["environment"]
    return [e for c in CONTAINERS for e in env.get(c, {}).values()]


def _marker(item: dict[str, Any]) -> str | None:
    return next((v for k, v in item.items() if k.endswith("_type") and v in ("target", "distraction", "irrelevant")),
                None)


def _entity_id(entity: dict[str, Any]) -> str:
    return next(entity[k] for k in ("store_id", "shop_id", "hotel_id", "train_id", "flight_id") if k in entity)


def render(suite: list[dict[str, Any]]) -> bytes:
    return dumps(suite, DEMO_INDENT)


def test_two_builds_are_byte_identical(suite):
    assert render(build_demo_suite()) == render(suite)


def test_committed_file_equals_a_fresh_build_from_the_spec(suite, tmp_path):
    # The committed suite is what the spec expands to, byte for byte: edit the spec, then regenerate.
    assert DEMO.read_bytes() == render(suite), "run: vitabench synth --preset demo"
    written = write(build_demo_suite(), tmp_path / "tasks.json", DEMO_INDENT)
    assert written.read_bytes() == DEMO.read_bytes()


def test_size_and_shape(suite):
    assert len(render(suite)) < 1_500_000
    assert len(suite) >= 4 and all(len(user["subtasks"]) >= 5 for user in suite)
    assert {sub["domain"] for _, sub in _subtasks(suite)} == {"delivery", "instore", "ota"}
    for user in suite:
        profile = user["user_profile"]
        assert {"user_id", "occupation", "gender", "birth_date", "city", "home_address", "work_address", "family",
                "allergies"} <= set(profile)
        assert [s["subtask_id"] for s in user["subtasks"]] == [f"sub_{user['user_id']}_{n}"
                                                              for n in range(1, len(user["subtasks"]) + 1)]


def test_every_subtask_loads_with_the_schema_and_its_domain(suite):
    for user in suite:
        task = UserTask.model_validate(user)
        for sub in task.subtasks:
            validate_environment(sub.domain, sub.environment)
            assert sub.environment["user_id"] == task.user_id
            assert sub.environment["time"].startswith(sub.current_time)
            assert sub.user_scenario and sub.user_scenario.personalized_preference_memory["current"]


def test_every_rubric_has_exactly_one_check_with_the_same_text(suite):
    for _, sub in _subtasks(suite):
        criteria = sub["evaluation_criteria"]
        rubrics = criteria["overall_rubrics"]
        assert rubrics == criteria["expected_states"][0]["state_rubrics"]
        assert len(rubrics) == len(set(rubrics)) >= 3
        checks = [RubricCheck.model_validate(c) for c in sub["rubric_checks"]]
        assert [c.rubric for c in checks] == rubrics


def test_exactly_one_target_and_it_is_not_the_best_rated(suite):
    for _, sub in _subtasks(suite):
        entities = _entities(sub)
        targets = [e for e in entities if _marker(e) == "target"]
        assert len(targets) == 1, sub["subtask_id"]
        products = [p for e in entities for p in e["products"] if p.get("product_type") == "target"]
        if _record_type(sub) == "reservation":
            assert products == [] and sub["target_product_ids"] == [_entity_id(targets[0])]
        else:
            assert len(products) == 1 and sub["target_product_ids"] == [products[0]["product_id"]]
            assert products[0] in targets[0]["products"]
        scores = [e["score"] for e in entities if e.get("score") is not None]
        if scores:
            assert targets[0]["score"] < max(scores), f"{sub['subtask_id']}: the target is the best rated"
        assert all(_marker(e) == "distraction" and e.get("distraction_reason") for e in entities if e not in targets)


def _record_type(sub: dict[str, Any]) -> str:
    return next(c["check"]["record_type"] for c in sub["rubric_checks"] if c["check"]["kind"] == "record")


def _record(sub: dict[str, Any], entity: dict[str, Any], product: dict[str, Any] | None) -> dict[str, Any]:
    """The record an agent would create by booking this option exactly as the rubrics ask."""
    kind = _record_type(sub)
    record: dict[str, Any] = {field: None for field in RECORD_FIELDS}
    wanted: dict[str, Any] = {}
    for item in sub["rubric_checks"]:
        check = item["check"]
        for field, cond in check.get("where", {}).items():
            if field in ("address", "time") and "contains" in cond:
                wanted[field] = cond["contains"]
            elif field in ("total_quantity", "customer_count") and "eq" in cond:
                wanted[field] = cond["eq"]
            elif field == "dates":
                wanted[field] = cond["includes_all"]
    quantity = wanted.get("total_quantity", 1)
    record.update(record_type=kind, record_id="R1", entity_id=_entity_id(entity), status="paid", new=True,
                  product_ids=[product["product_id"]] if product and kind != "reservation" else [],
                  quantities=[quantity], total_quantity=quantity, address=wanted.get("address", ""),
                  dates=[product["date"]] if product and product.get("date") else wanted.get("dates", []),
                  time=wanted.get("time"), customer_count=wanted.get("customer_count"))
    return record


def _record_checks_met(sub: dict[str, Any], record: dict[str, Any]) -> list[bool]:
    out = []
    for item in sub["rubric_checks"]:
        check = RubricCheck.model_validate(item).check
        if isinstance(check, RecordCheck):
            out.append(run_check(check, [record], [])[0])
    return out


def test_the_target_meets_every_record_rubric_and_the_popular_distractor_does_not(suite):
    for _, sub in _subtasks(suite):
        entities = _entities(sub)
        target = next(e for e in entities if _marker(e) == "target")
        product = next((p for p in target["products"] if p.get("product_type") == "target"), None)
        assert all(_record_checks_met(sub, _record(sub, target, product))), sub["subtask_id"]
        popular = next(e for e in entities if "popular" in e.get("tags", []))
        for option in popular["products"] if product else [None]:
            assert not all(_record_checks_met(sub, _record(sub, popular, option))), sub["subtask_id"]
        # Every other option breaks at least one rubric.
        for entity in entities:
            for option in (entity["products"] if product else [None]):
                if entity is target and option is product:
                    continue
                assert not all(_record_checks_met(sub, _record(sub, entity, option))), (
                    f"{sub['subtask_id']}: {_entity_id(entity)} {option and option['product_id']} also satisfies")


def test_proactive_subtasks_hide_a_fact_and_check_the_question(suite):
    for user in suite:
        proactive = [s for s in user["subtasks"] if s["skill_tested"] == ["proactive"]]
        assert proactive, f"{user['id']} has no proactive subtask"
        for sub in proactive:
            assert sub["user_intention"]
            assert sub["user_intention"] not in sub["instruction"]
            kinds = [RubricCheck.model_validate(c).check for c in sub["rubric_checks"]]
            asked = [c for c in kinds if isinstance(c, TextCheck) and c.kind == "asked"]
            assert asked and asked[0].pattern
        for sub in user["subtasks"]:
            if sub["skill_tested"] == ["personalize"]:
                assert sub["user_intention"] == ""


def test_histories_are_chronological_inside_their_window(suite):
    for _, sub in _subtasks(suite):
        dates = [record["date"] for record in sub["interactions"]]
        assert dates == sorted(dates) and dates
        assert all(sub["start_date"] <= d <= sub["end_date"] < sub["current_time"] for d in dates), sub["subtask_id"]
        for record in sub["interactions"]:
            assert set(record) == {"date", "behavior", "dialogue"}
            assert all(set(turn) == {"role", "content"} for turn in record["dialogue"])
    for user in suite:
        subs = user["subtasks"]
        assert all(a["current_time"] <= b["start_date"] for a, b in zip(subs, subs[1:], strict=False))


def test_histories_carry_noise_and_every_user_drifts(suite):
    records = [r for _, sub in _subtasks(suite) for r in sub["interactions"]]

    def noisy(record: dict[str, Any]) -> bool:
        kinds = {b["behavior_type"] for b in record["behavior"]}
        for_someone_else = any(b["content"].get("note") for b in record["behavior"] if b["behavior_type"] == "order")
        return for_someone_else or (bool(kinds) and kinds <= {"search", "browse"} and not record["dialogue"])

    share = sum(map(noisy, records)) / len(records)
    assert 0.15 <= share <= 0.4, share
    for user in suite:
        changes = [c for s in user["subtasks"]
                   for c in s["user_scenario"]["personalized_preference_memory"]["preference_tag_change_history"]]
        assert changes, f"{user['id']} never changes a preference"
        drifted = next(s for s in user["subtasks"]
                       if s["user_scenario"]["personalized_preference_memory"]["preference_tag_change_history"])
        current = json.dumps(drifted["user_scenario"]["personalized_preference_memory"]["current"])
        assert all(c["new"] in current for c in changes if c["type"] in ("add", "modify"))


def test_decisive_words_appear_in_the_groundtruth_and_the_history_so_far():
    # A preference-aware agent can only win if the words that decide are stated: in the ground truth
    # of the subtask and somewhere in the history up to it (later drift may state them differently).
    for user in load_spec(DEMO_SPEC).users:
        history = ""
        for n, spec in enumerate(user.subtasks, 1):
            history += json.dumps([day.model_dump() for day in spec.history]).lower()
            truth = json.dumps(user.preferences[spec.preferences]).lower()
            for dim in spec.dimensions:
                if isinstance(dim, MinScoreDimension):
                    words = [f"{dim.min_score:g}"]
                elif isinstance(dim, MaxPriceDimension):
                    words = [f"{dim.max_price:g}"]
                elif dim.good:
                    words = [dim.good.lower()]
                else:
                    words = [re.sub(r"^no ", "", bad.lower()) for bad in dim.bad]
                for word in words:
                    assert word in truth, f"{user.user_id} #{n}: {word!r} not in the ground truth"
                    assert word in history, f"{user.user_id} #{n}: {word!r} not in the history"
