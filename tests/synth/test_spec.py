"""Curated suite specs: what a bad spec is told, and that a spec expands into a suite the loader accepts."""

from __future__ import annotations

import ast
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_vitabench.suite.loader import load_suite
from pytest_vitabench.synth import curated
from pytest_vitabench.synth.curated import DEMO_SPEC, build_demo_suite, expand
from pytest_vitabench.synth.generator import write
from pytest_vitabench.synth.spec import SpecError, load_spec, parse_spec


@pytest.fixture(scope="module")
def demo_data() -> dict[str, Any]:
    return json.loads(DEMO_SPEC.read_text(encoding="utf-8"))


@pytest.fixture()
def one_subtask(demo_data) -> dict[str, Any]:
    """The demo spec cut down to its first user's first subtask."""
    data = copy.deepcopy(demo_data)
    data["users"] = data["users"][:1]
    data["users"][0]["subtasks"] = data["users"][0]["subtasks"][:1]
    return data


def _first(data: dict[str, Any]) -> dict[str, Any]:
    return data["users"][0]["subtasks"][0]


def test_a_cut_down_spec_expands_to_a_suite_the_loader_accepts(one_subtask, tmp_path):
    suite = expand(parse_spec(one_subtask))
    loaded = load_suite(write(suite, tmp_path / "one.json"), strict=True)
    assert [user.error for user in loaded.users] == [None]
    # Each subtask draws from its own stream: cutting the spec down changes nothing in what remains.
    assert suite[0]["subtasks"] == build_demo_suite()[0]["subtasks"][:1]


def test_the_seed_changes_the_draws_but_not_the_declared_facts(one_subtask):
    before = expand(parse_spec(one_subtask))[0]["subtasks"][0]
    after = expand(parse_spec({**one_subtask, "seed": "another seed"}))[0]["subtasks"][0]
    assert before["environment"] != after["environment"]
    for key in ("instruction", "interactions", "user_scenario", "evaluation_criteria", "task", "current_time"):
        assert before[key] == after[key], key


def test_history_days_expand_to_official_daily_records(one_subtask):
    _first(one_subtask)["history"] = [
        {"date": "2025-01-08", "behavior": [{"order": "Brew Lab", "scenario": "delivery",
                                             "items": [["Whole Milk Latte", 28, 1]], "note": "for a friend"}],
         "chat": ["Whole milk, please.", "Done."]},
        {"date": "2025-01-09", "behavior": [{"review": 4, "text": "Fine."}, {"search": "tea"}, {"browse": "cafes"}]},
        {"date": "2025-01-10", "chat": ["Only shops rated 4.5 or above.", "Noted."]},
    ]
    records = expand(parse_spec(one_subtask))[0]["subtasks"][0]["interactions"]
    assert records == [
        {"date": "2025-01-08",
         "behavior": [{"behavior_type": "order", "content": {
             "scenario": "delivery", "merchant_name": "Brew Lab", "tags": [],
             "items": [{"product_name": "Whole Milk Latte", "price": 28, "quantity": 1}], "note": "for a friend"}}],
         "dialogue": [{"role": "user", "content": "Whole milk, please."}, {"role": "assistant", "content": "Done."}]},
        {"date": "2025-01-09",
         "behavior": [{"behavior_type": "review", "content": {"rating": 4, "text": "Fine."}},
                      {"behavior_type": "search", "content": {"keyword": "tea"}},
                      {"behavior_type": "browse", "content": {"topic": "cafes"}}],
         "dialogue": []},
        {"date": "2025-01-10", "behavior": [],
         "dialogue": [{"role": "user", "content": "Only shops rated 4.5 or above."},
                      {"role": "assistant", "content": "Noted."}]},
    ]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = data
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        if value is _DELETE:
            del node[int(last) if last.isdigit() else last]
        else:
            node[int(last) if last.isdigit() else last] = value
    return edit


_DELETE = object()
_SUB = "users/0/subtasks/0"

BAD = [
    ("format", _set("format", "vitabench-curated-spec/9"), "format", "vitabench-curated-spec/1"),
    ("unknown key", _set(f"{_SUB}/dimensions/0/goood", "x"), "users[0].subtasks[0].dimensions[0].goood",
     "Extra inputs are not permitted"),
    ("missing rubric", _set(f"{_SUB}/dimensions/2/rubric", _DELETE), "users[0].subtasks[0].dimensions[2].rubric",
     "required field is missing"),
    ("bad level", _set(f"{_SUB}/dimensions/0/level", "city"), "users[0].subtasks[0].dimensions[0].level",
     "'merchant' or 'product'"),
    ("good among the bad", _set(f"{_SUB}/dimensions/0/bad", ["soy milk", "whole milk"]),
     "users[0].subtasks[0].dimensions[0]", "must differ from each other and from 'whole milk'"),
    ("no bad phrase", _set(f"{_SUB}/dimensions/0/bad", []), "users[0].subtasks[0].dimensions[0].bad",
     "at least 1 item"),
    ("unknown behaviour", _set(f"{_SUB}/history/0/behavior/0", {"tip": 5}),
     "users[0].subtasks[0].history[0].behavior[0]", "one of the keys order, review, search, browse"),
    ("review out of range", _set(f"{_SUB}/history/1/behavior/0/review", 9),
     "users[0].subtasks[0].history[1].behavior[0].review", "less than or equal to 5"),
    ("empty day", _set(f"{_SUB}/history/0", {"date": "2025-01-08"}), "users[0].subtasks[0].history[0]",
     "needs a behavior or a chat"),
    ("not a date", _set(f"{_SUB}/day", "2025-02-30"), "users[0].subtasks[0].day", "day is out of range"),
    ("bad clock", _set(f"{_SUB}/clock", "8:40"), "users[0].subtasks[0].clock", "should match pattern"),
    ("unknown kind", _set(f"{_SUB}/kind", "cinema"), "users[0].subtasks[0].kind", "'delivery'"),
    ("popular_breaks", _set(f"{_SUB}/popular_breaks", 3), "users[0].subtasks[0]", "names no dimension"),
    ("price range", _set(f"{_SUB}/price", [40, 20]), "users[0].subtasks[0]", "price range [40, 20] is empty"),
    ("too few merchants", _set(f"{_SUB}/merchants", ["A", "B", "C"]), "users[0].subtasks[0].merchants",
     "at least 4 items"),
    ("history after the day", _set(f"{_SUB}/day", "2025-02-20"), "users[0].subtasks[0]",
     "before the subtask's day 2025-02-20"),
    ("travel without destination", _set(f"{_SUB}/kind", "hotel"), "users[0].subtasks[0]",
     "needs destination and travel_date"),
    ("train without stations", _set(f"{_SUB}/kind", "train"), "users[0].subtasks[0]", "needs destination"),
    ("reservation without party", _set(f"{_SUB}/kind", "reservation"), "users[0].subtasks[0]",
     "needs visit_time and party"),
    ("change without its old tag", _set(f"{_SUB}/changes", [{"date": "2025-03-01", "type": "modify",
                                                               "category": "Food & drink", "new": "oat milk"}]),
     "users[0].subtasks[0].changes[0]", "a modify change has old and new, not new"),
    ("change after the day", _set(f"{_SUB}/changes", [{"date": "2025-03-10", "type": "add",
                                                       "category": "Food & drink", "new": "oat milk"}]),
     "users[0].subtasks[0]", "preference changes must come before the subtask's day 2025-03-10"),
    ("unknown preference state", _set(f"{_SUB}/preferences", "later"), "users[0]",
     "names the preference state 'later'"),
    ("profile without city", _set("users/0/profile/city", ""), "users[0]", "profile lacks city"),
    ("no users", _set("users", []), "users", "at least 1 item"),
]


@pytest.mark.parametrize(("edit", "where", "message"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_a_bad_spec_is_told_where_and_what(one_subtask, edit, where, message):
    edit(one_subtask)
    with pytest.raises(SpecError) as caught:
        parse_spec(one_subtask, "spec.json")
    assert any(at == where and message in problem for at, problem in caught.value.problems), caught.value.problems
    assert str(caught.value).startswith("spec.json: invalid curated suite spec")


def test_a_flight_without_stations_is_refused(demo_data):
    data = copy.deepcopy(demo_data)
    flight = next(sub for user in data["users"] for sub in user["subtasks"] if sub["kind"] == "flight")
    del flight["stations"]
    with pytest.raises(SpecError, match="a flight subtask needs stations"):
        parse_spec(data)


def test_repeated_user_ids_are_refused(demo_data):
    data = copy.deepcopy(demo_data)
    data["users"][1]["profile"]["user_id"] = data["users"][0]["profile"]["user_id"]
    with pytest.raises(SpecError, match="user ids repeat: \\['U100001'\\]"):
        parse_spec(data)


def test_load_spec_refuses_a_missing_a_non_json_and_a_non_utf8_file(tmp_path):
    with pytest.raises(SpecError, match="cannot read the file"):
        load_spec(tmp_path / "absent.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "vitabench-curated-spec/1",\n "users": [}', encoding="utf-8")
    with pytest.raises(SpecError, match="not JSON: .* at line 2 column"):
        load_spec(broken)
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"about": "caf\u00e9"}'.encode("latin-1"))
    with pytest.raises(SpecError, match="cannot read the file"):
        load_spec(latin)
    assert load_spec(DEMO_SPEC).users


def test_a_merchant_name_that_contradicts_its_tags_is_refused(one_subtask):
    # The target must carry the good phrase, so a target named after the bad one would mislead.
    sub = _first(one_subtask)
    sub["dimensions"][0] = {"level": "merchant", "good": "quiet", "bad": ["lively"], "rubric": "The cafe is quiet",
                            "reason": "noisy"}
    sub["merchants"][1] = "Lively Corner"
    with pytest.raises(ValueError, match="U100001 subtask 1: the name 'Lively Corner' contradicts its tags"):
        expand(parse_spec(one_subtask))


def test_the_spec_file_is_package_data():
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"synth/specs/*.json"' in pyproject and DEMO_SPEC.parent.name == "specs"


#: Keys of the official records the generator's builders write (``environment.product_body`` and
#: ``entity_body``, ``rubrics.RubricBook``, ``generator.subtask_record``).
_OFFICIAL_KEYS = {"product_id", "store_id", "shop_id", "hotel_id", "room_type", "seat_type", "subtask_id",
                  "record_type", "rubric", "pattern"}


def test_the_expansion_builds_no_official_record_itself():
    # curated.py shares the generator's record builders; a dict literal with an official key is a copy.
    tree = ast.parse(Path(curated.__file__).read_text(encoding="utf-8"))
    keys = {key.value for node in ast.walk(tree) if isinstance(node, ast.Dict)
            for key in node.keys if isinstance(key, ast.Constant)}
    assert not keys & _OFFICIAL_KEYS, sorted(keys & _OFFICIAL_KEYS)
