"""Failure categories: each rule on hand-made trajectories, then on real runs of the demo suite."""

from __future__ import annotations

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.report.failures import (
    CATEGORIES,
    categorize,
    creations,
    failure_table,
    render_failure_table,
    subtask_facts,
)

SUBTASK = {
    "skill_tested": ["proactive"],
    "target_product_ids": ["P2"],
    "environment": {"stores": {"S1": {"name": "Popular", "products": [{"product_id": "P1", "name": "Spicy"}]},
                               "S2": {"name": "Right", "products": [{"product_id": "P2", "name": "Mild"},
                                                                    {"product_id": "P3", "name": "Other"}]}}},
    "rubric_checks": [
        {"rubric": "The agent asks how many people", "check": {"kind": "asked", "pattern": "how many"}},
        {"rubric": "The dish is mild", "check": {"kind": "record", "record_type": "delivery", "where": {}}},
        {"rubric": "The order is paid", "check": {"kind": "record", "record_type": "delivery", "where": {}}},
    ],
    "user_scenario": {"personalized_preference_memory": {
        "current": {"Food": ["mild dishes"]},
        "rubric_sources": [{"rubric": "The dish is mild", "tag": "mild dishes", "phrases": ["mild"]}]}},
}
FACTS = subtask_facts(SUBTASK)


def _order(store, product, error=False, name="create_delivery_order"):
    return [{"role": "assistant", "tool_calls": [{"id": "c1", "name": name, "arguments": {
                "user_id": "U1", "store_id": store, "product_ids": [product]}}]},
            {"role": "tool", "tool_call_id": "c1", "name": name, "content": "{}", "error": error}]


def _item(*unmet, outcome="failed", termination="user_stop", tool_errors=0):
    rubrics = [{"text": text, "met": False, "reason": "x"} for text in unmet]
    return {"outcome": outcome, "termination": termination, "rubrics": rubrics, "tool_errors": tool_errors}


def test_facts_come_from_the_suite_annotations():
    assert FACTS.proactive and FACTS.asking_rubrics == {"The agent asks how many people"}
    assert FACTS.preference_phrases == {"The dish is mild": ["mild"]}
    assert FACTS.target_products == {"P2"} and FACTS.target_entities == {"S2"}


def test_without_rubric_sources_preferences_are_matched_by_shared_words():
    bare = {**SUBTASK, "user_scenario": {"personalized_preference_memory": {"current": {"T": ["second class seats"]}}},
            "rubric_checks": [], "evaluation_criteria": {"overall_rubrics": ["The seats are second class",
                                                                             "The agent asks when"]}}
    facts = subtask_facts(bare)
    assert facts.preference_phrases == {"The seats are second class": ["class", "seats", "second"]}
    assert facts.asking_rubrics == {"The agent asks when"}
    assert subtask_facts(None).preference_phrases == {}


@pytest.mark.parametrize("item, messages, memory, expected", [
    (_item(outcome="passed"), [], "", None),
    (_item(outcome="skipped"), [], "", None),
    (_item(outcome="error"), [], "", "infrastructure_error"),
    (_item("The dish is mild", termination="max_steps"), _order("S2", "P2"), "", "step_limit"),
    (_item("The dish is mild", termination="too_many_errors"), [], "", "tool_errors"),
    (_item("The dish is mild"), _order("S2", "P2", error=True), "", "tool_errors"),
    (_item("The dish is mild"), [{"role": "assistant", "content": "Shall I book it?"}], "", "user_stopped_early"),
    (_item("The dish is mild", termination="agent_stop"), [{"role": "assistant", "content": "Sorry."}], "",
     "no_order"),
    (_item("The agent asks how many people", "The dish is mild"), _order("S1", "P1"), "mild", "no_question"),
    (_item("The dish is mild"), _order("S1", "P1"), "likes spicy", "preference_missing"),
    (_item("The dish is mild"), _order("S1", "P1"), "likes MILD dishes", "preference_violated"),
    (_item("The order is paid"), _order("S1", "P1"), "", "wrong_store"),
    (_item("The order is paid"), _order("S2", "P3"), "", "wrong_product"),
    (_item("The order is paid", tool_errors=2), _order("S2", "P2"), "", "tool_errors"),
    (_item("The order is paid"), _order("S2", "P2"), "", "order_details"),
    (_item("The order is paid"), _order("S2", "P2", name="instore_reservation"), "", "order_details"),
])
def test_each_category(item, messages, memory, expected):
    assert categorize(item, messages, memory, FACTS) == expected


def test_creations_read_entity_and_products_and_ignore_reads_and_bad_arguments():
    messages = [{"role": "assistant", "tool_calls": [
        {"id": "a", "name": "get_store_info", "arguments": {"store_id": "S1"}},
        {"id": "b", "name": "create_train_order", "arguments": {"train_id": "T1", "seat_id": "P9", "user_id": "U"}},
        {"id": "c", "name": "create_delivery_order", "arguments": "{not json"}]}]
    made = creations(messages)
    assert [(c.tool, c.entity, c.products, c.ok) for c in made] == [
        ("create_train_order", "T1", {"P9"}, True), ("create_delivery_order", None, set(), True)]


def test_table_counts_cells_keeps_examples_and_renders():
    table = failure_table([("n1", "no_order", "ota", "none"), ("n2", "no_order", "ota", "none"),
                           ("n3", "step_limit", "delivery", "rag")], examples_per_cell=1)
    assert table["items"] == {"n1": "no_order", "n2": "no_order", "n3": "step_limit"}
    assert table["cells"] == [
        {"category": "step_limit", "domain": "delivery", "memory": "rag", "count": 1, "examples": ["n3"]},
        {"category": "no_order", "domain": "ota", "memory": "none", "count": 2, "examples": ["n1"]}]
    lines = render_failure_table(table)
    assert lines[1].split() == ["category", "none:ota", "rag:delivery", "total"]
    assert lines[2].split() == ["step_limit", ".", "1", "1"]
    assert lines[-1].split() == ["total", "2", "1", "3"]
    assert render_failure_table({"cells": []}) == ["Failure categories: no failed items"]
    assert set(CATEGORIES) >= {c["category"] for c in table["cells"]}


DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"


@pytest.mark.parametrize("args, expected", [
    (["--vita-memory", "none"], {"preference_missing"}),
    (["--vita-memory", "full_context", "--vita-max-steps", "5"], {"step_limit"}),
    (["--vita-model", "literal", "--vita-memory", "none"], {"no_order", "no_question", "preference_missing"}),
])
def test_real_demo_runs_get_the_expected_categories(pytester, args, expected):
    report = pytester.path / "run.json"
    result = pytester.runpytest(str(DEMO), "--vita-trials", "1", "--vita-failures", "--vita-report", str(report),
                                "-p", "no:cacheprovider", *args)
    result.stdout.fnmatch_lines(["Failure categories (failed items by memory:domain*"])
    import json

    data = json.loads(report.read_text())
    failed = {r["nodeid"] for r in data["results"] if r["outcome"] == "failed"}
    assert set(data["failures"]["items"]) == failed  # every failed item has a category
    assert set(data["failures"]["items"].values()) == expected
