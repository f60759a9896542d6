"""The run directory store and open_run: journal, blobs stored once, torn lines, reports of schema /1 and /2."""

from __future__ import annotations

import json

import pytest

from pytest_vitabench.messages import Message
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.report.json_report import build_report, write_report
from pytest_vitabench.result import ItemResult
from pytest_vitabench.runs import open_run
from pytest_vitabench.runs.manifest import build_manifest, config_sha256, difference_lines
from pytest_vitabench.runs.records import journal_item
from pytest_vitabench.runs.store import RunStore

CONFIG = {"model": "reference", "trials": 2, "seed": 0, "memory": ["full_context"], "base_url": "http://a:1/v1"}


def result(user: str, trial: int, reward: float, snapshot: str = "likes tea") -> ItemResult:
    return ItemResult(nodeid=f"t.json::{user}::s1[full_context-t{trial}]", user_id=user, subtask_id="s1",
                      domain="delivery", skills=["personalize"], memory="full_context", trial=trial, reward=reward,
                      outcome="passed" if reward == 1.0 else "failed", memory_snapshot=snapshot,
                      messages=[Message(role="assistant", content="Hello"), Message(role="user", content=f"{user}")])


@pytest.fixture
def run_dir(tmp_path):
    store = RunStore(tmp_path / "runs" / "20260101-000000-abcdef")
    store.write_manifest(build_manifest(run_id=store.run_id, config=CONFIG, suites={"t.json": "0" * 64},
                                        selection={"planned": 4}, command=["pytest"]))
    for item in (result("U1", 0, 1.0), result("U1", 1, 0.0), result("U2", 0, 1.0, snapshot="likes coffee")):
        journal_item(store, item, suite_sha256="0" * 64, config_sha256=config_sha256(CONFIG))
    store.close()
    return store


def test_a_run_directory_reads_as_a_partial_report_with_lazy_trajectories(run_dir):
    run = open_run(run_dir.path)
    assert run.report["schema"] == "vitabench-report/2"
    assert run.report["run"]["completed"] == 3 and run.report["run"]["planned"] == 4 and run.report["run"]["partial"]
    assert [r["nodeid"] for r in run.results] == sorted(r["nodeid"] for r in run.results)
    assert all("messages" not in r and "memory_snapshot" not in r for r in run.results)
    assert run.messages("t.json::U2::s1[full_context-t0]")[1]["content"] == "U2"
    assert run.memory_snapshot("t.json::U1::s1[full_context-t1]") == "likes tea"
    assert run.report["metrics"]["full_context"]["subtask"]["n_units"] == 2
    # 3 items, but U1's two trials have the same trajectory and snapshot: 2 trajectories + 2 snapshots stored
    assert len(list((run_dir.path / "blobs").rglob("*.json.gz"))) == 4
    with pytest.raises(KeyError):
        run.messages("nope")


def test_a_torn_last_line_is_skipped(run_dir):
    journal = next((run_dir.path / "journal").glob("*.jsonl"))
    with open(journal, "ab") as handle:
        handle.write(b'{"nodeid": "t.json::U2::s1[full_context-t1]", "rew')  # killed mid-write
    assert len(open_run(run_dir.path).results) == 3


def test_reports_of_schema_1_and_2_read_the_same(run_dir, tmp_path):
    results = [result("U1", 0, 1.0), result("U1", 1, 0.0)]
    metrics = compute_metrics(results)
    v1 = {**build_report(CONFIG, metrics, results), "schema": "vitabench-report/1"}
    v1.pop("run")
    v1["results"] = [r.model_dump(mode="json") for r in results]
    write_report(tmp_path / "v1.json", v1)
    for item in results:
        journal_item(run_dir, item, suite_sha256="0" * 64, config_sha256="x")
    write_report(tmp_path / "v2.json", build_report(CONFIG, metrics, results, run={"dir": str(run_dir.path)}))
    old, new = open_run(tmp_path / "v1.json"), open_run(tmp_path / "v2.json")
    assert "messages" not in json.loads((tmp_path / "v2.json").read_text())["results"][0]
    for nodeid in (r.nodeid for r in results):
        assert old.messages(nodeid) == new.messages(nodeid) and old.messages(nodeid)
        assert old.memory_snapshot(nodeid) == new.memory_snapshot(nodeid) == "likes tea"
        assert old.full_result(nodeid)["reward"] == new.full_result(nodeid)["reward"]


@pytest.mark.parametrize("content, message", [("[1, 2]", "not a VitaBench report"),
                                              ('{"schema": "other/1"}', "not a VitaBench report"),
                                              ("{broken", "x.json is not valid JSON: expecting property name "
                                                          "enclosed in double quotes at line 1 column 2")])
def test_bad_inputs_are_clear_errors(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        open_run(path)
    with pytest.raises(FileNotFoundError):
        open_run(tmp_path / "missing.json")
    (tmp_path / "empty-run").mkdir()
    with pytest.raises(ValueError, match="no readable manifest.json"):
        open_run(tmp_path / "empty-run")


def test_the_endpoint_is_not_a_scoring_setting():
    moved = {**CONFIG, "base_url": "http://b:2/v1"}
    assert config_sha256(moved) == config_sha256(CONFIG) and difference_lines(CONFIG, moved) == []
    assert difference_lines(CONFIG, {**CONFIG, "seed": 7}) == ["seed: saved 0, now 7"]


def test_a_blob_folder_removed_during_a_run_is_made_again(tmp_path):
    import hashlib
    import shutil

    from pytest_vitabench.runs.store import canonical_json

    store = RunStore(tmp_path / "run")
    first = store.put_blob(["first"])
    # a value whose blob goes to the same two-letter folder, removed before it is stored
    value = next(["second", n] for n in range(100_000)
                 if hashlib.sha256(canonical_json(["second", n])).hexdigest()[:2] == first[:2])
    shutil.rmtree(store.path / "blobs")
    second = store.put_blob(value)
    assert second[:2] == first[:2] and second != first
    assert store.get_blob(second) == value
    assert not list((store.path / "blobs").rglob("*.tmp"))
