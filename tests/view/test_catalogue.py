"""Names behind ids from the suite files a run names; graceful when they are missing or changed."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest
from _paths import VB1_DIR, VB1_SKIP_REASON
from _suites import tiny_suite, write_suite

from pytest_vitabench.view.catalogue import load_catalogue


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_names_and_subtasks_come_from_the_recorded_suite(tmp_path):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    catalogue = load_catalogue({str(path): _sha(path)})
    assert catalogue.statuses[0].problem is None
    some_store = tiny_suite()[0]["subtasks"][0]["environment"]["stores"]
    store_id, store = next(iter(some_store.items()))
    assert catalogue.name(store_id) == store["name"]
    product = store["products"][0]
    assert catalogue.name(product["product_id"]) == product["name"]
    user = tiny_suite()[0]
    assert catalogue.subtask(user["user_id"], user["subtasks"][0]["subtask_id"])["instruction"]


def test_a_moved_suite_is_found_by_name_in_a_search_dir(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    path = write_suite(tmp_path / "elsewhere" / "tasks.json", tiny_suite())
    catalogue = load_catalogue({"/no/such/dir/tasks.json": _sha(path)}, search_dirs=[tmp_path / "elsewhere"])
    assert catalogue.statuses[0].found == str(path) and catalogue.names


def test_missing_changed_and_broken_suites_degrade_to_bare_ids(tmp_path):
    changed = write_suite(tmp_path / "changed.json", tiny_suite())
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(b"not gzip at all")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{oops")
    odd_shape = tmp_path / "odd.json"
    odd_shape.write_text(json.dumps({"users": "?"}))
    catalogue = load_catalogue({str(tmp_path / "gone.json"): "x", str(changed): "0" * 64, str(broken): "",
                                str(garbage): "", str(odd_shape): ""})
    problems = {s.path.rsplit("/", 1)[-1]: s.problem for s in catalogue.statuses}
    assert problems["gone.json"].startswith("not found")
    assert problems["changed.json"].startswith("changed since the run")
    assert problems["broken.json.gz"].startswith("unreadable")
    assert problems["garbage.json"].startswith("unreadable")
    assert problems["odd.json"] is None and catalogue.name("nothing") is None
    assert catalogue.names  # the changed file is still used


def test_gzip_suites_are_read(tmp_path):
    path = tmp_path / "tasks.vita.json.gz"
    path.write_bytes(gzip.compress(json.dumps(tiny_suite()).encode()))
    assert load_catalogue({str(path): _sha(path)}).statuses[0].problem is None


def test_real_vitabench1_tasks_give_store_and_product_names():
    path = VB1_DIR / "delivery_tasks_en.json"
    if not path.is_file():
        pytest.skip(VB1_SKIP_REASON)
    data = json.loads(path.read_text(encoding="utf-8"))
    catalogue = load_catalogue({str(path): _sha(path)})
    stores = data[0]["environment"]["stores"]
    store_id, store = next(iter(stores.items()))
    assert catalogue.name(store_id) == store["name"]
    assert catalogue.subtask(str(data[0]["environment"]["user_id"]), str(data[0]["id"])) is not None
