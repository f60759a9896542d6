"""--vita-baseline, --vita-fail-regression and --vita-failures in real pytest runs of the demo suite (xdist)."""

from __future__ import annotations

import json

import pytest
from _paths import REPO_ROOT

DEMO = str(REPO_ROOT / "suites" / "demo" / "tasks.json")


@pytest.fixture
def baseline(pytester: pytest.Pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    path = pytester.path / "base.json"
    result = pytester.runpytest(DEMO, "-n", "2", "-p", "no:cacheprovider", "--vita-trials", "1",
                                "--vita-memory", "full_context", "--vita-report", str(path))
    assert path.is_file(), result.stdout.str()
    return path


def test_a_significant_drop_beyond_delta_fails_the_run_even_when_thresholds_are_met(pytester, baseline):
    report = pytester.path / "new.json"
    result = pytester.runpytest(DEMO, "-n", "2", "-p", "no:cacheprovider", "--vita-trials", "1",
                                "--vita-memory", "none", "--vita-baseline", str(baseline),
                                "--vita-fail-regression", "0.05",
                                "--vita-fail-under", "avg@1=0.0", "--vita-report", str(report))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "Comparison this run vs *base.json (paired per user and subtask; full_context vs none)",
        "shared units: 20 over 4 users",
        "settings that differ:",
        "  memory: ['full_context'] -> ['none']",
        "Avg: 0.800 -> 0.000, change -0.800 [[]-0.950, -0.650[]] (95% paired bootstrap over users)",
        "discordant trials: 16 pass->fail, 0 fail->pass; exact McNemar p = 3.05e-05: significant drop",
        "regressed: 16 subtask(s)",
        "*REGRESSION: Avg drop 0.800 > allowed 0.050*",
    ])
    data = json.loads(report.read_text())
    assert data["comparison"]["significant_drop"] is True and len(data["comparison"]["regressed"]) == 16
    assert data["comparison"]["regressed"][0]["anchor"].startswith("#unit=U1000")


def test_a_drop_within_delta_passes_the_gate(pytester, baseline):
    result = pytester.runpytest(DEMO, "-n", "2", "-p", "no:cacheprovider", "--vita-trials", "1",
                                "--vita-memory", "none", "--vita-baseline", str(baseline),
                                "--vita-fail-regression", "0.9",
                                "--vita-fail-under", "avg@1=0.0")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*regression gate passed (allowed drop 0.9)*"])


def test_the_same_run_again_is_no_regression_and_failures_table_is_opt_in(pytester, baseline):
    result = pytester.runpytest(DEMO, "-p", "no:cacheprovider", "--vita-trials", "1", "--vita-memory", "full_context",
                                "--vita-baseline", str(baseline), "--vita-fail-regression", "0",
                                "--vita-fail-under", "avg@1=0.5")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["Avg: 0.800 -> 0.800, change +0.000*", "*: no significant change",
                                 "regressed: 0 subtask(s)"])
    result.stdout.no_fnmatch_line("Failure categories*")
    result = pytester.runpytest(DEMO, "-p", "no:cacheprovider", "--vita-trials", "1", "--vita-failures")
    result.stdout.fnmatch_lines(["Failure categories (failed items by memory:domain*",
                                 "category*full_context:delivery*full_context:instore*full_context:ota*total"])


def test_a_missing_baseline_fails_the_gate_with_the_reason(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest(DEMO, "-p", "no:cacheprovider", "--vita-trials", "1", "-k", "U100001",
                                "--vita-baseline", "nowhere.json", "--vita-fail-regression", "0.1",
                                "--vita-fail-under", "avg@1=0.0")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*cannot compare with the baseline nowhere.json: *no such file*"])


@pytest.mark.parametrize("args, message", [
    (["--vita-baseline", "b.json", "--vita-fail-regression", "lots"], "must be a number such as 0.02"),
    (["--vita-baseline", "b.json", "--vita-fail-regression", "2"], "between 0 and 1"),
    (["--vita-fail-regression", "0.1"], "needs --vita-baseline"),
])
def test_bad_gate_options_are_usage_errors(pytester, args, message):
    result = pytester.runpytest(DEMO, "-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])
