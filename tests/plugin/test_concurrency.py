"""--vita-concurrency: many episodes in flight per process, pytest semantics unchanged."""

from __future__ import annotations

import json
import re

import pytest
from _engine_helpers import REQUESTS_PER_ITEM, scripted_stub, write_many

LLM = ["--vita-model", "stub-model", "--vita-memory", "none", "-p", "no:cacheprovider"]


@pytest.fixture
def llm_project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    write_many(pytester.path / "tasks.json", users=4, subtasks=2)  # 8 subtasks
    return pytester


def _run(project, stub, *args, report="run.json"):
    path = project.path / report
    result = project.runpytest_subprocess(*LLM, "--vita-base-url", stub.base_url, "--vita-report", str(path), *args)
    return result, (json.loads(path.read_text()) if path.exists() else None)


def _outcomes(report):
    return {r["nodeid"]: (r["outcome"], r["reward"], r["steps"]) for r in report["results"]}


def test_one_process_keeps_n_episodes_in_flight_and_reports_in_collection_order(llm_project):
    stub = scripted_stub(delay=0.2)
    try:
        result, report = _run(llm_project, stub, "--vita-trials", "2", "--vita-concurrency", "4", "-v")
        assert stub.peak_live == 4
        assert len(stub.requests) == 16 * REQUESTS_PER_ITEM
        lines = [line.split(" ")[0] for line in result.outlines if re.match(r"tasks\.json::U\d::s\d\[", line)]
        collected = llm_project.runpytest("--collect-only", "-q", *LLM, "--vita-trials", "2",
                                          "--vita-base-url", stub.base_url).outlines
        assert lines == [line for line in collected if line.startswith("tasks.json::")]
        # the same outcomes as one at a time, and the per-item usage is each item's own
        sequential, one_by_one = _run(llm_project, stub, "--vita-trials", "2", "--vita-concurrency", "1",
                                      report="seq.json")
        assert _outcomes(report) == _outcomes(one_by_one)
        assert {r["outcome"] for r in report["results"]} == {"passed", "failed"}
        assert all(r["usage"]["agent"]["requests"] == REQUESTS_PER_ITEM for r in report["results"])
        assert report["usage"]["roles"]["agent"]["requests"] == 16 * REQUESTS_PER_ITEM
        assert report["metrics"] == one_by_one["metrics"]
    finally:
        stub.close()


def test_two_workers_times_n_in_flight(llm_project):
    pytest.importorskip("xdist")
    stub = scripted_stub(delay=0.3)
    try:
        result, report = _run(llm_project, stub, "-n", "2", "--vita-trials", "4", "--vita-concurrency", "3")
        assert stub.peak_live == 6
        assert len(report["results"]) == 32 and report["run"]["completed"] == 32 and not report["run"]["partial"]
        assert len(stub.requests) == 32 * REQUESTS_PER_ITEM
        assert result.stdout.str().count("VitaBench results") == 1
    finally:
        stub.close()


def test_exitfirst_stops_new_episodes_and_labels_the_run_partial(llm_project):
    stub = scripted_stub(delay=0.2)
    try:
        # trial 1 of each subtask fails (odd seed); -x stops at the first failure
        result, report = _run(llm_project, stub, "--vita-trials", "2", "--vita-concurrency", "3", "-x")
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        reported = report["results"]
        assert len(reported) == 2  # t0 passed, t1 failed, then the stop
        # nothing started after the stop beyond what was in flight: at most 3 items' requests past the two
        assert len(stub.requests) <= (2 + 3) * REQUESTS_PER_ITEM
        assert report["run"]["partial"] and report["run"]["planned"] == 16 and report["run"]["completed"] == 2
        result.stdout.fnmatch_lines(["*partial: 2 of 16 planned items*"])
        assert report["metrics"]["none"]["k"] == 2  # K stays --vita-trials
    finally:
        stub.close()


DESELECT = ["--deselect", "tasks.json::U1", "--deselect", "tasks.json::U3", "--deselect", "tasks.json::U4", "-k", "s1"]


@pytest.mark.parametrize("select", [["-k", "U2 and s1"], DESELECT], ids=["keyword", "deselect"])
def test_only_selected_items_start(llm_project, select):
    stub = scripted_stub(delay=0.05)
    try:
        result, report = _run(llm_project, stub, "--vita-trials", "2", "--vita-concurrency", "8", *select)
        assert sorted(r["nodeid"] for r in report["results"]) == [
            "tasks.json::U2::s1[none-t0]", "tasks.json::U2::s1[none-t1]"]
        assert len(stub.requests) == 2 * REQUESTS_PER_ITEM
        assert report["run"]["partial"]
    finally:
        stub.close()


def test_concurrency_option_is_validated(llm_project):
    result = llm_project.runpytest("--vita-concurrency", "zero")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--vita-concurrency must be a whole number >= 1 or 'auto'*"])
