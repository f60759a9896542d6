"""CI-facing behaviour through the whole plugin: exit statuses, K-aware gates, the GitHub step summary and
annotations, live progress lines, and failure text by verbosity."""

from __future__ import annotations

import sys

import pytest


def test_a_plain_run_exits_like_pytest(project):
    result = project.runpytest("--vita-trials", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.no_fnmatch_line("*exit status*")
    assert project.runpytest("--vita-trials", "2", "-k", "t0").ret == pytest.ExitCode.OK


def test_a_gated_run_exits_with_the_gates_verdict(project):
    met = project.runpytest("--vita-trials", "2", "--vita-fail-under", "avg=0.5")
    assert met.ret == 0
    met.stdout.fnmatch_lines(["*exit status 0: every gate passed (failed items do not fail a gated run)*"])
    missed = project.runpytest("--vita-trials", "2", "--vita-fail-under", "avg=0.6")
    assert missed.ret == 1
    missed.stdout.fnmatch_lines(["FAIL-UNDER: full_context subtask avg@2 = 0.500 < 0.600*",
                                 "*exit status 1 (gate failed): 1 threshold(s) missed*"])


def test_an_ini_gate_for_a_full_run_does_not_refuse_a_smoke_run(project):
    project.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n"
                    "vita_fail_under = avg@4=0.5,pass^4=0.5\n")
    full = project.runpytest()  # 4 trials: pass^4 = 0 for the units that fail on odd seeds
    assert full.ret == 1
    full.stdout.fnmatch_lines(["FAIL-UNDER: full_context subtask pass^4 = 0.000 < 0.500*"])
    smoke = project.runpytest("-k", "t0")  # one trial each: avg applies, pass^4 cannot be computed
    smoke.stdout.fnmatch_lines([
        "VitaBench metrics (k=1: 1 of 4 trials per unit selected; *",
        "full_context  subtask  *1.000 *",  # the table's figure, which the gate reads
        "fail-under: full_context subtask avg@1 = 1.000 >= 0.500; checked as avg@1, the table's figure: avg@4 was "
        "written, this run has k=1 (trials selected per unit*",
        "*threshold pass^4=0.5 not checked: pass^4 needs 4 trials per subtask, this run has k=1*",
        "fail-under thresholds met: 1 of 2 (1 not checked, said above)",
        "exit status 0: every gate passed *; 1 threshold(s) not checked"])
    assert smoke.ret == 0


def test_step_summary_and_annotations_under_github_actions(project, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = project.runpytest("--vita-trials", "2", "--vita-fail-under", "avg@2=0.6,pass^k=0")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["::error title=VitaBench threshold missed::full_context subtask avg@2 = 0.500 < 0.600"])
    text = summary.read_text()
    assert text.startswith("earlier step\n## VitaBench results")  # appended, as GitHub expects
    assert "**exit status 1 (gate failed): 1 threshold(s) missed**" in text
    assert "| full_context | subtask | 0.500" in text
    assert "| `avg@2=0.6` | full_context | 0.500 | **missed**: full_context subtask avg@2 = 0.500 < 0.600 |" in text
    assert "| `pass^k=0` | full_context | 0.000 | met |" in text
    assert "### Worst subtasks" in text and "| full_context | U2 | s1 | delivery | 0.500 | 1/2 | 0 |" in text
    assert "Regressions" not in text  # no baseline given


def test_no_annotations_outside_github_actions(project, monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    result = project.runpytest("--vita-trials", "2", "--vita-fail-under", "avg@2=0.6")
    result.stdout.no_fnmatch_line("::error*")


def test_progress_lines_report_done_planned_avg_and_errors(project):
    result = project.runpytest("--vita-trials", "2", "--vita-progress", "0.000001")
    lines = [line for line in result.stdout.lines if line.startswith("vitabench: ")]
    assert len(lines) >= 2
    assert lines[-1].startswith("vitabench: 6/6 items (100.0%)") and "Avg 0.500" in lines[-1]
    assert lines[-1].endswith("0 tokens, $0.0000, 0 errors")
    assert "ETA" in lines[0]


def test_progress_is_quiet_under_q_and_when_off(project):
    quiet = project.runpytest("--vita-trials", "2", "--vita-progress", "0.000001", "-q")
    quiet.stdout.no_fnmatch_line("vitabench: *items*")
    off = project.runpytest("--vita-trials", "2", "--vita-progress", "off")
    off.stdout.no_fnmatch_line("vitabench: *items*")


@pytest.mark.skipif(sys.platform == "win32", reason="xdist subprocess test")
def test_progress_under_xdist_counts_every_workers_items(project):
    pytest.importorskip("xdist")
    result = project.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", "--vita-trials", "2",
                                          "--vita-progress", "0.000001")
    lines = [line for line in result.stdout.lines if "vitabench: " in line and " items" in line]
    assert lines, result.stdout.str()
    done = [int(line.split("vitabench: ")[1].split("/")[0]) for line in lines]
    assert done == sorted(done) and done[-1] == 6 and all("/6 items" in line for line in lines)
    assert all(line.startswith("vitabench: ") for line in lines)  # never glued to a row of dots


def test_failure_text_by_verbosity(project):
    quiet = project.runpytest("--vita-trials", "2", "-q", "-k", "U2")
    quiet.stdout.fnmatch_lines(["reward 0.0: unmet 'The order is for product P2'"])
    quiet.stdout.no_fnmatch_line("*because:*")
    default = project.runpytest("--vita-trials", "2", "-k", "U2")
    default.stdout.fnmatch_lines(["reward 0.0: 1 unmet of 2*", "  x The order is for product P2", "      because: *"])
    default.stdout.no_fnmatch_line("conversation (last*")
    very = project.runpytest("--vita-trials", "2", "-k", "U2", "-vv")
    very.stdout.fnmatch_lines(["conversation (last * of * messages):",
                               "  [[]*[]] assistant: -> create_delivery_order(*",
                               "  [[]*[]] assistant: Your order is placed and paid. ###STOP###"])


def test_a_large_suite_gets_a_line_before_it_is_loaded(project):
    path = project.path / "tasks.json"
    path.write_text(path.read_text() + " " * 1_000_000)  # still valid JSON, now over the 1 MB mark
    result = project.runpytest("--vita-trials", "1", "--collect-only")
    result.stdout.fnmatch_lines(["vitabench: collecting tasks.json (1.0 MB): loading and validating the suite*",
                                 "*3 tests collected*"])
    quiet = project.runpytest("--vita-trials", "1", "--collect-only", "-q")
    quiet.stdout.no_fnmatch_line("vitabench: collecting*")
