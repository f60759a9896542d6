"""``--vita-model answer`` through the real plugin, across xdist workers, and ``vitabench validate`` naming
unsolvable subtasks."""

from __future__ import annotations

import json
import shutil

import pytest
from _official_shape import ALL_FIXTURES, VB1_INSTORE
from _paths import VB1_DIR, VB1_SKIP_REASON

from pytest_vitabench.commands.cli import main as vitabench


def test_answer_scores_one_on_every_official_shape_fixture_with_xdist(pytester: pytest.Pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    names = []
    for path in ALL_FIXTURES:
        shutil.copy(path, pytester.path / path.name)
        names.append(path.name)
    report = pytester.path / "run.json"
    result = pytester.runpytest(*names, "--vita-model", "answer", "--vita-memory", "none", "--vita-trials", "1",
                                "-n", "2", "--vita-report", str(report))
    result.stdout.fnmatch_lines(["*none*subtask*1.000*", "*items: 11 passed, 0 failed, 0 error, 0 skipped*"])
    data = json.loads(report.read_text())
    assert data["metrics"]["none"]["subtask"]["avg@1"] == 1.0
    assert {r["domain"] for r in data["results"]} == {"delivery", "instore", "ota"}
    assert result.ret == pytest.ExitCode.OK


def test_validate_names_an_unsolvable_subtask_and_why(tmp_path, capsys):
    data = json.loads(VB1_INSTORE.read_text(encoding="utf-8"))
    data[1]["evaluation_criteria"]["expected_states"][0]["required_orders"][0]["products"][0]["product_id"] = "GONE"
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert vitabench(["validate", "--no-stats", "--no-rules", str(path)]) == 0
    out = capsys.readouterr().out
    assert "answers      3 of 4 annotated subtasks solved by their answer key" in out
    assert "unsolvable: IS0002::IS0002: an instore order at SH2001 of 2 x GONE: product GONE is not sold by SH2001 " \
           "(in no entity of the environment)" in out
    assert vitabench(["validate", "--no-stats", "--no-rules", "--strict", str(path)]) == 1
    capsys.readouterr()
    assert vitabench(["validate", "--no-stats", "--no-rules", "--no-answers", str(path)]) == 0
    assert "answers" not in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.skipif(not VB1_DIR.is_dir(), reason=VB1_SKIP_REASON)
@pytest.mark.parametrize("checks, summary, failed", [
    ([], "*items: 97 passed, 3 failed, 0 error, 0 skipped*", {"10826019", "10826033", "10826077"}),
    (["--vita-deviation", "tool-checks=official"], "*items: 99 passed, 1 failed, 0 error, 0 skipped*", {"10826019"}),
], ids=["default-checks", "official-checks"])
def test_the_real_in_store_file_as_the_issue_ran_it(pytester: pytest.Pytester, checks, summary, failed):
    # The command of issue 23: the answer oracle on the real 1.0 in-store tasks across two workers; every
    # failure is one that validate names (a data defect, or a default tool check).
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    report = pytester.path / "run.json"
    result = pytester.runpytest(str(VB1_DIR / "instore_tasks_en.json"), "--vita-model", "answer", "--vita-trials",
                                "1", "-n", "2", "--vita-report", str(report), *checks)
    result.stdout.fnmatch_lines([summary])
    data = json.loads(report.read_text())
    assert {r["subtask_id"] for r in data["results"] if r["outcome"] != "passed"} == failed
