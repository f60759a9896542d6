"""The JSON report: the document, atomic UTF-8 writes, and a loader that refuses foreign files."""

from __future__ import annotations

import json
import os

import pytest

from pytest_vitabench.judges.base import RubricVerdict
from pytest_vitabench.messages import Message, ToolCall, Usage
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.report.json_report import SCHEMA, build_report, load_report, write_report
from pytest_vitabench.result import ItemResult


def item(user: str, trial: int, reward: float, **extra) -> ItemResult:
    return ItemResult(nodeid=f"suites/demo/tasks.json::{user}::s01[full_context-t{trial}]", user_id=user,
                      subtask_id="s01", domain="delivery", skills=["personalize"], memory="full_context",
                      trial=trial, reward=reward, outcome="passed" if reward == 1.0 else "failed", **extra)


def results() -> list[ItemResult]:
    rich = item("U001", 0, 0.0,
                rubrics=[RubricVerdict(text="订购甜品", met=False, reason="选了饮料")],
                usage={"agent": Usage(prompt_tokens=10, completion_tokens=2, cost=0.001, requests=1)},
                messages=[Message(role="assistant", tool_calls=[ToolCall(id="c1", name="search",
                                                                          arguments={"q": "dessert"})]),
                          Message(role="tool", tool_call_id="c1", name="search", content="[]")],
                memory_snapshot="likes 抹茶")
    return [item("U002", 1, 1.0), item("U002", 0, 1.0), rich, item("U001", 1, 1.0)]


def report() -> dict:
    res = results()
    return build_report({"model": "reference", "trials": 2}, compute_metrics(res, bootstrap=10), res)


def test_build_report_shape_and_order():
    rep = report()
    assert list(rep) == ["schema", "config", "run", "metrics", "results"]
    assert rep["schema"] == SCHEMA == "vitabench-report/2"
    assert rep["config"] == {"model": "reference", "trials": 2}
    assert rep["metrics"]["full_context"]["subtask"]["avg@2"] == pytest.approx(0.75)
    nodeids = [r["nodeid"] for r in rep["results"]]
    assert nodeids == sorted(nodeids) and len(nodeids) == 4
    first = rep["results"][0]
    assert first["rubrics"] == [{"text": "订购甜品", "met": False, "reason": "选了饮料", "kind": "rubric"}]
    assert first["messages"][0]["tool_calls"][0]["arguments"] == {"q": "dessert"}
    assert first["usage"]["agent"]["cost"] == 0.001
    # The dump is plain JSON data and reads back into the same records.
    assert ItemResult.model_validate(first) == results()[2]
    json.dumps(rep, allow_nan=False)


def test_build_report_ignores_input_order():
    res = results()
    a = build_report({}, {}, res)
    b = build_report({}, {}, list(reversed(res)))
    assert a == b


def test_write_and_load_round_trip(tmp_path):
    rep = report()
    path = tmp_path / "nested" / "dir" / "run.json"
    assert write_report(path, rep) == path
    assert load_report(path) == json.loads(json.dumps(rep))
    raw = path.read_bytes()
    assert raw.startswith(b'{\n "schema": "vitabench-report/2"')  # indent=1
    assert "抹茶".encode() in raw  # UTF-8, not \u escapes
    assert os.listdir(path.parent) == ["run.json"]  # no temp file left behind


def test_write_replaces_existing_file(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("old", encoding="utf-8")
    write_report(path, build_report({"n": 1}, {}, []))
    assert load_report(path)["config"] == {"n": 1}


def test_failed_write_keeps_old_file_and_leaves_no_temp(tmp_path):
    path = tmp_path / "run.json"
    write_report(path, build_report({"n": 1}, {}, []))
    with pytest.raises(TypeError):
        write_report(path, {"schema": SCHEMA, "config": {"bad": object()}})
    assert load_report(path)["config"] == {"n": 1}
    assert os.listdir(tmp_path) == ["run.json"]


def test_non_finite_numbers_become_null(tmp_path):
    res = [item("U001", 0, 1.0, usage={"agent": Usage(cost=float("nan"))})]
    path = write_report(tmp_path / "run.json", build_report({}, {}, res))
    text = path.read_text(encoding="utf-8")
    assert "NaN" not in text
    assert load_report(path)["results"][0]["usage"]["agent"]["cost"] is None


def test_load_rejects_non_json(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("<html>", encoding="utf-8")
    with pytest.raises(ValueError, match=r"run.json is not valid JSON: expecting value at line 1 column 1$"):
        load_report(path)
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="is not a JSON file"):
        load_report(path)


@pytest.mark.parametrize("doc", [[1, 2], {"results": []}, {"schema": "vitabench-report/3"}])
def test_load_rejects_other_documents(tmp_path, doc):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="vitabench-report/1"):
        load_report(path)


def test_load_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_report(tmp_path / "nope.json")


def test_interrupted_replace_removes_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "run.json"
    write_report(path, build_report({"n": 1}, {}, []))

    def broken_replace(src, dst):
        assert os.path.dirname(src) == str(tmp_path)  # the temp file sits beside the target
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_report(path, build_report({"n": 2}, {}, []))
    monkeypatch.undo()
    assert load_report(path)["config"] == {"n": 1}
    assert os.listdir(tmp_path) == ["run.json"]


def test_a_schema_1_report_still_loads(tmp_path):
    rep = {**report(), "schema": "vitabench-report/1"}
    del rep["run"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(rep), encoding="utf-8")
    assert load_report(path)["schema"] == "vitabench-report/1"
