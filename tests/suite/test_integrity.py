"""Every defect class of issue 10 ends as a clear error naming the file and JSON path, for that user only.

Each case breaks one user of the tiny suite and checks that: the loader raises nothing, the broken user
fails with the expected JSON path and message, the other user loads untouched, and no traceback text
appears. Odd-but-usable values load with a warning that names their path.
"""

from __future__ import annotations

import gzip
import json

import pytest
from _paths import VB1_DIR, VB1_SKIP_REASON
from _suites import broken, tiny_suite, write_suite

from pytest_vitabench.suite.integrity import MAX_NESTING, node_id_problem, time_problem
from pytest_vitabench.suite.loader import SuiteError, load_suite

ENV = "[0].subtasks[0].environment"
STORE = f"{ENV}.stores.S2"


def _errors(suite):
    return {user.index: user.error.render() for user in suite.users if user.error is not None}


def _instore_environment(data):
    env = data[0]["subtasks"][0]["environment"]
    env["shops"] = {"H1": {"shop_id": "H1", "shop_name": "Tea House", "products": []}}
    del env["stores"]


def _set(path, value):
    """A mutation that sets ``data[...]`` at a key path."""

    def mutate(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


STORE_KEYS = (0, "subtasks", 0, "environment", "stores", "S2")
PRODUCT_KEYS = (*STORE_KEYS, "products", 0)


@pytest.mark.parametrize("mutate, where, fragment", [
    # JSON values
    (_set((*STORE_KEYS, "score"), float("nan")), f"{STORE}.score", "nan is not a number a suite can use"),
    (_set((*STORE_KEYS, "score"), float("-inf")), f"{STORE}.score", "-inf is not a number"),
    (_set((0, "user_profile", "city"), float("inf")), "[0].user_profile.city", "inf is not a number"),
    (_set((0, "subtasks", 0, "interactions", 0, "behavior", 0, "content"),
          json.loads("[" * (MAX_NESTING + 5) + "]" * (MAX_NESTING + 5))),
     "[0].subtasks[0].interactions[0].behavior[0].content", f"nested more than {MAX_NESTING} levels deep"),
    # numbers that make no sense
    (_set((*PRODUCT_KEYS, "price"), -28), f"{STORE}.products[0].price", "price -28 is negative"),
    (_set((*PRODUCT_KEYS, "quantity"), -3), f"{STORE}.products[0].quantity", "quantity -3 is negative"),
    (_set((*STORE_KEYS, "score"), -1.5), f"{STORE}.score", "score -1.5 is negative"),
    (_set((*STORE_KEYS, "location", "latitude"), 391.0), f"{STORE}.location.latitude", "outside [-90, 90]"),
    # ids
    (_set((0, "id"), "U1::x"), "[0].id", "contains '::'"),
    (_set((0, "id"), ""), "[0].id", "user id is empty"),
    (_set((0, "subtasks", 0, "subtask_id"), "s[1]"), "[0].subtasks[0].subtask_id", "contains '[' or ']'"),
    (_set((0, "subtasks", 0, "subtask_id"), " s1"), "[0].subtasks[0].subtask_id", "leading or trailing"),
    (_set((0, "subtasks", 0, "subtask_id"), "s\n1"), "[0].subtasks[0].subtask_id", "control character"),
    (_set((*PRODUCT_KEYS, "product_id"), ""), f"{STORE}.products[0].product_id", "product id is empty"),
    (lambda d: d[0]["subtasks"][0]["environment"]["stores"]["S2"]["products"].append(
        dict(d[0]["subtasks"][0]["environment"]["stores"]["S2"]["products"][0], name="Other")),
     f"{STORE}.products[1].product_id", "duplicate product id 'P2'"),
    # domains
    (lambda d: d[0]["subtasks"][0]["environment"].pop("stores"), ENV,
     "a delivery subtask needs stores in its environment; it has none"),
    (_set((0, "subtasks", 0, "domain"), "delivery,delivery"), "[0].subtasks[0].domain",
     "lists 'delivery' more than once"),
    (lambda d: (_instore_environment(d), d[0]["subtasks"][0].update(domain="delivery")),
     ENV, "a delivery subtask needs stores in its environment; it has none"),
    (_set((0, "subtasks", 0, "domain"), "ota"), ENV, "a ota subtask needs hotels or attractions"),
    # times
    (lambda d: (d[0]["subtasks"][0]["environment"].update(time=""),
                d[0]["subtasks"][0].update(current_time="0000-00-00 00:00:00")),
     "[0].subtasks[0].current_time", "its fallback, current_time, is not a date: '0000-00-00 00:00:00'"),
    (lambda d: (d[0]["subtasks"][0]["environment"].update(time=""), d[0]["subtasks"][0].update(current_time="\0")),
     "[0].subtasks[0].current_time", "not a date"),
    (_set((0, "subtasks", 0, "environment", "time"), "soon"), f"{ENV}.time", "'soon' is not a valid time"),
    # what the agent is told
    (_set((0, "user_profile", "user_id"), "U9"), "[0].user_profile.user_id", "differs from the user's id 'U1'"),
    (lambda d: d[0]["user_profile"].pop("user_id"), "[0].user_profile", "the profile has no user_id"),
    (_set((0, "subtasks", 0, "instruction"), "  "), "[0].subtasks[0].instruction", "the instruction is empty"),
])
def test_each_defect_is_an_error_for_its_user_only(tmp_path, mutate, where, fragment):
    path = write_suite(tmp_path / "tasks.json", broken(mutate))
    suite = load_suite(path)
    errors = _errors(suite)
    assert set(errors) == {0}, errors
    assert errors[0].startswith(f"{path}: invalid VitaBench suite")
    assert f"at {where}" in errors[0] and fragment in errors[0], errors[0]
    assert "Traceback" not in errors[0]
    assert suite.users[1].task is not None and suite.users[1].task.model_dump() == load_suite(
        write_suite(tmp_path / "clean.json", tiny_suite())).users[1].task.model_dump()


def test_an_integer_too_long_for_python_fails_its_user_only(tmp_path):
    text = json.dumps(tiny_suite()).replace('"score": 4.5', '"score": ' + "7" * 5000, 1)
    path = tmp_path / "tasks.json"
    path.write_text(text)
    errors = _errors(load_suite(path))
    assert set(errors) == {0}
    assert f"at {STORE}.score: an integer of 5000 digits" in errors[0]


def test_a_key_repeated_with_different_values_is_an_error(tmp_path):
    text = json.dumps(tiny_suite()).replace('"score": 4.5', '"score": 4.5, "score": 1.0', 1)
    path = tmp_path / "tasks.json"
    path.write_text(text)
    errors = _errors(load_suite(path))
    assert f"at {STORE}: key(s) 'score' appear more than once with different values" in errors[0]
    same = tmp_path / "same.json"
    same.write_text(json.dumps(tiny_suite()).replace('"score": 4.5', '"score": 4.5, "score": 4.5', 1))
    assert not _errors(load_suite(same))  # a harmless repeat


@pytest.mark.parametrize("raw, name, fragment", [
    (b"[" * 100_000 + b"]" * 100_000, "tasks.json", "at [0] (line 1 column 65): nested more than 64 levels deep"),
    (json.dumps(tiny_suite()).encode()[:-40], "tasks.json",
     "not valid JSON: unterminated string starting at line 1 column"),
    (b'[{"id": "U1\xff"}]', "tasks.json", "not UTF-8 text: byte 0xff at offset 11"),
    (b"", "tasks.json", "not valid JSON: expecting value at line 1 column 1"),
    (gzip.compress(b"[]", mtime=0)[:-6], "tasks.json.gz", "cannot read file"),
    (bytes(b ^ 0xFF if i == 12 else b for i, b in enumerate(gzip.compress(json.dumps(tiny_suite()).encode(),
                                                                         mtime=0))),
     "tasks.json.gz", "cannot read file"),
], ids=["deep", "truncated", "utf8", "empty", "short-gzip", "corrupt-gzip"])
def test_an_unusable_file_is_one_clear_error(tmp_path, raw, name, fragment):
    path = tmp_path / name
    path.write_bytes(raw)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert info.value.render().startswith(f"{path}: invalid VitaBench suite")
    assert fragment in info.value.render(), info.value.render()


@pytest.mark.parametrize("mutate, fragment", [
    (_set((*PRODUCT_KEYS, "quantity"), 0), f"stock of 0 (sold out) at {STORE}.products[0].quantity"),
    (_set((*PRODUCT_KEYS, "price"), 0), f"product price of 0 at {STORE}.products[0].price"),
    (_set((0, "subtasks", 0, "instruction"), "noodles " * 20_000), "strings longer than 100,000 characters at "
                                                                  "[0].subtasks[0].instruction"),
    (lambda d: d[0]["subtasks"][0]["environment"].update(shops={"H1": {"shop_id": "H1", "shop_name": "Tea"}}),
     f"entities of a domain the subtask does not list (its tools never see them) at {ENV}.shops"),
    (lambda d: d[0]["subtasks"][1].pop("user_intention"),
     "proactive subtasks without user_intention (the user has nothing to tell when asked) at "
     "[0].subtasks[1].user_intention"),
    (lambda d: d[0]["subtasks"][0].pop("evaluation_criteria") and d[0]["subtasks"][0].pop("rubric_checks"),
     "no rubrics (judged only by its target annotation, else not judged; the official harness scores it 1.0) "
     "at [0].subtasks[0].evaluation_criteria"),
])
def test_odd_but_usable_values_load_with_a_warning_naming_them(tmp_path, mutate, fragment):
    suite = load_suite(write_suite(tmp_path / "tasks.json", broken(mutate)))
    assert not _errors(suite)
    assert any(fragment in warning for warning in suite.warnings), suite.warnings


def test_free_zero_priced_things_are_a_warning_not_an_error_on_real_data():
    if not VB1_DIR.exists():
        pytest.skip(VB1_SKIP_REASON)
    suite = load_suite(VB1_DIR / "delivery_tasks_en.json")
    assert not _errors(suite)
    assert any("product price of 0 at [50].environment.orders." in warning for warning in suite.warnings)


def test_a_vitabench1_task_is_not_judged_by_its_domain_label(tmp_path):
    if not VB1_DIR.exists():
        pytest.skip(VB1_SKIP_REASON)
    tasks = json.loads((VB1_DIR / "delivery_tasks_en.json").read_text(encoding="utf-8"))[:2]
    tasks[0]["environment"]["shops"] = {"H1": {"shop_id": "H1", "shop_name": "Tea", "products": []}}
    tasks[1]["environment"].pop("stores")
    errors = _errors(load_suite(write_suite(tmp_path / "vb1.json", tasks)))
    assert set(errors) == {1}  # extra containers are the 1.0 label's business; missing entities are not
    assert "at [1].environment: a delivery subtask needs stores" in errors[1]


@pytest.mark.parametrize("value, ok", [("U1", True), ("U 1", True), ("用户1", True), ("", False), ("a::b", False),
                                       ("a[b", False), ("a\tb", False), ("a ", False)])
def test_node_id_rule(value, ok):
    assert (node_id_problem(value) is None) == ok


@pytest.mark.parametrize("value, ok", [("2025-06-01 11:00:00", True), ("2025-06-01 11:00", True),
                                       ("2025-06-01T11:00:00", True), ("0000-00-00 00:00:00", False),
                                       ("2025-02-30 10:00:00", False), ("\0", False), ("", False)])
def test_time_rule(value, ok):
    assert (time_problem(value) is None) == ok
