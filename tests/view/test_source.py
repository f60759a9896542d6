"""load_run: a saved run read by its report or its folder, and its bad inputs."""

from __future__ import annotations

import gzip
import json

import pytest

from pytest_vitabench.runs.reader import load_run


def _report(results):
    return {"schema": "vitabench-report/1", "config": {"model": "m"}, "metrics": {}, "results": results}


def test_heavy_fields_are_served_on_demand_not_kept_in_the_results(tmp_path):
    record = {"nodeid": "a::U1::s1[none-t0]", "user_id": "U1", "messages": [{"role": "user", "content": "hi"}],
              "memory_snapshot": "likes tea"}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_report([record])))
    run = load_run(path)
    assert run.results == [{"nodeid": "a::U1::s1[none-t0]", "user_id": "U1"}]
    assert run.messages("a::U1::s1[none-t0]") == [{"role": "user", "content": "hi"}]
    assert run.memory_snapshot("a::U1::s1[none-t0]") == "likes tea"
    with pytest.raises(KeyError):
        run.messages("unknown")
    assert run.config == {"model": "m"}


def test_a_run_directory_is_read_through_its_report(tmp_path):
    (tmp_path / "report.json").write_text(json.dumps(_report([])))
    assert load_run(tmp_path).results == []
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="not a VitaBench run directory"):
        load_run(tmp_path / "empty")


@pytest.mark.parametrize("content, message", [
    ("not json", "is not valid JSON: expecting value at line 1 column 1"),
    (json.dumps({"results": []}), "not a VitaBench report \\(schema None"),
    (json.dumps({"schema": "vitabench-report/0", "results": []}), "schema 'vitabench-report/0'"),
    (json.dumps(_report({"nodeid": "x"})), "must be a list"),
    (json.dumps(_report([{"user_id": "U1"}])), "with a 'nodeid'"),
])
def test_bad_reports_are_refused_with_the_reason(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        load_run(path)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_run(tmp_path / "absent.json")
    path = tmp_path / "r.json"
    path.write_bytes(gzip.compress(b"{}"))
    with pytest.raises(ValueError):
        load_run(path)
