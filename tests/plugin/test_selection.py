"""Metrics of a selection, in real pytest runs of the demo suite: k is the trials selected per unit (by -k, node
ids, --lf), never a zero for a trial nobody asked for; selected items that did not finish are named and count as
the metrics style says; the gate reads the figure the table shows; serial and -n 2 agree."""

from __future__ import annotations

import json

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.runs import open_run

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
#: The issue's command: user U100002's five subtasks, first trial only (the demo runs 4 trials of full_context).
SMOKE = ["tasks.json", "-p", "no:cacheprovider", "-k", "U100002 and t0"]


def _report(pytester: pytest.Pytester, name: str) -> dict:
    return json.loads((pytester.path / name).read_text())


def _run_dir_metrics(pytester: pytest.Pytester) -> dict:
    """The metrics of the run's directory read back (``vitabench view``/``compare`` of a run directory)."""
    (manifest,) = pytester.path.glob(".vitabench/runs/*/manifest.json")
    return open_run(manifest.parent).report["metrics"]


def _table_row(lines: list[str], start: str) -> list[str]:
    return next(line for line in lines if line.startswith(start)).split()


def test_a_one_trial_selection_is_measured_at_k_1_not_as_zeros(demo):
    result = demo.runpytest(*SMOKE, "--vita-report", "r.json")
    assert result.ret == 1  # 2 of the 5 items fail: the benchmark's findings
    result.stdout.fnmatch_lines(["VitaBench metrics (k=1: 1 of 4 trials per unit selected; 95% intervals: *",
                                 "memory * Avg@1 * Pass@1 * Pass^1 *"])
    lines = result.outlines
    assert _table_row(lines, "full_context  subtask")[2] == "0.600"  # 3 of 5 subtasks passed their one trial
    assert _table_row(lines, "full_context  domain=instore")[2] == "1.000"
    result.stdout.no_fnmatch_line("*fewer than k*")  # nothing is short: every selected trial finished
    result.stdout.no_fnmatch_line("*not finished*")
    metrics = _report(demo, "r.json")["metrics"]["full_context"]
    assert metrics["k"] == 1 and metrics["subtask"]["avg@1"] == pytest.approx(0.6)
    assert metrics["subtask"]["n_units"] == 5 and metrics["subtask"]["n_short"] == 0
    assert _report(demo, "r.json")["run"]["trials_selected"] == 1
    assert _run_dir_metrics(demo) == _report(demo, "r.json")["metrics"]


def test_the_gate_reads_the_tables_figure_and_says_which_k_it_checked(demo):
    met = demo.runpytest(*SMOKE, "--vita-fail-under", "avg@4=0.40")
    assert met.ret == 0
    met.stdout.fnmatch_lines([
        "full_context  subtask  * 0.600 *",
        "fail-under: full_context subtask avg@1 = 0.600 >= 0.400; checked as avg@1, the table's figure: avg@4 was "
        "written, this run has k=1 (trials selected per unit*",
        "fail-under thresholds met",
        "exit status 0: every gate passed*"])
    missed = demo.runpytest(*SMOKE, "--vita-fail-under", "avg@4=0.70,pass^4=0.1")
    assert missed.ret == 1
    missed.stdout.fnmatch_lines([
        "*threshold pass^4=0.1 not checked: pass^4 needs 4 trials per subtask, this run has k=1*",
        "FAIL-UNDER: full_context subtask avg@1 = 0.600 < 0.700; checked as avg@1, the table's figure*",
        "exit status 1 (gate failed): 1 threshold(s) missed; 1 threshold(s) not checked"])


def test_node_ids_and_uneven_selections_take_the_fewest_trials_selected(demo):
    ids = [f"tasks.json::U100001::sub_U100001_1[full_context-t{t}]" for t in (0, 1)]
    two = demo.runpytest(*ids, "-p", "no:cacheprovider", "--vita-report", "two.json")
    two.stdout.fnmatch_lines(["VitaBench metrics (k=2: 2 of 4 trials per unit selected; *"])
    assert _report(demo, "two.json")["metrics"]["full_context"]["subtask"]["n_units"] == 1
    # every unit's first trial, and all four of U100002's: k is 1, and U100002's units use all their trials
    uneven = demo.runpytest("tasks.json", "-p", "no:cacheprovider", "-k", "t0 or U100002", "--vita-report", "u.json")
    uneven.stdout.fnmatch_lines(["VitaBench metrics (k=1: 1 of 4 trials per unit selected; *"])
    uneven.stdout.no_fnmatch_line("*fewer than k*")
    report = _report(demo, "u.json")
    assert report["metrics"]["full_context"]["subtask"]["n_units"] == 20
    assert len(report["results"]) == 20 + 5 * 3


def test_last_failed_measures_the_failed_trials_it_selected(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_bytes(DEMO.read_bytes())
    first = pytester.runpytest("tasks.json", "-k", "U100002")
    assert first.ret == 1
    again = pytester.runpytest("tasks.json", "--lf", "--vita-report", "lf.json")
    again.stdout.fnmatch_lines(["*run-last-failure: rerun previous 8 failures*",
                                "VitaBench metrics (k=4; *"])  # whole units failed: all 4 trials selected
    metrics = _report(pytester, "lf.json")["metrics"]["full_context"]
    assert metrics["subtask"]["n_units"] == 2 and metrics["subtask"]["n_short"] == 0


@pytest.mark.parametrize("style, counted", [
    ("default", "a unit left with fewer than k=4 trials scores 0 (n_short)"),
    ("official", "each counts as a 0.0 reward (metrics style official)")])
def test_selected_items_that_did_not_finish_are_named_and_count_as_the_style_says(demo, style, counted):
    result = demo.runpytest("tasks.json", "-p", "no:cacheprovider", "-k", "U100002", "--maxfail", "1",
                            "--vita-deviation", f"metrics={style}", "--vita-report", "r.json")
    # the first failure (sub_U100002_2, t0) stops the run: its trials t1-t3 and three more subtasks never run
    result.stdout.fnmatch_lines(["VitaBench metrics (k=4; *"])  # K is what was selected, not what finished
    line = next(line for line in result.outlines if line.startswith("not finished: "))
    assert line.startswith("not finished: 15 selected item(s) have no result "
                           "(tasks.json::U100002::sub_U100002_2[full_context-t1], ")
    assert line.endswith(f", ... and 10 more); {counted}")
    subtask = _report(demo, "r.json")["metrics"]["full_context"]["subtask"]
    assert _run_dir_metrics(demo) == _report(demo, "r.json")["metrics"]  # read back: k stays 4
    assert subtask["n_units"] == 2
    if style == "default":
        assert subtask["n_short"] == 1 and subtask["avg@4"] == pytest.approx(0.5)  # 1.0 and a short unit's 0
    else:
        assert subtask["avg@4"] == pytest.approx(0.5)  # 1.0 and a unit of 0.0 + three 0.0 stand-ins


@pytest.mark.slow
def test_a_selection_under_xdist_gives_the_serial_runs_metrics(demo):
    serial = demo.runpytest(*SMOKE, "--vita-memory", "none,full_context", "--vita-report", "serial.json")
    spread = demo.runpytest(*SMOKE, "--vita-memory", "none,full_context", "-n", "2", "--vita-report", "xdist.json")
    assert serial.ret == spread.ret == 1
    spread.stdout.fnmatch_lines(["VitaBench metrics (k=1: 1 of 4 trials per unit selected; *"])
    xdist = _report(demo, "xdist.json")
    assert xdist["metrics"] == _report(demo, "serial.json")["metrics"]  # every field, intervals and paired included
    assert xdist["metrics"]["full_context"]["k"] == 1 and xdist["metrics"]["full_context"]["paired"]["vs_none"]
