"""--vita-resume says what it reuses, refuses to resume nothing, and never takes the next argument as its run."""

from __future__ import annotations

import json

import pytest
from _paths import REPO_ROOT

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
BASE = ["-p", "no:cacheprovider"]
ITEMS = 20 * 4  # demo subtasks x trials (one backend)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    # a copy, so that the rootdir (and the runs under it) is the test's own directory
    (pytester.path / "tasks.json").write_bytes(DEMO.read_bytes())
    return pytester


def _run_ids(project: pytest.Pytester) -> list[str]:
    return sorted(p.parent.name for p in project.path.glob(".vitabench/runs/*/manifest.json"))


def test_the_header_counts_reused_and_remaining_items_under_xdist_and_serially(project):
    first = project.runpytest("tasks.json", *BASE, "-k", "t1")
    assert first.ret == 1 and first.parseoutcomes()["deselected"] == ITEMS - 20
    [run_id] = _run_ids(project)
    # the path after the bare option is a path, not the run's name
    resumed = project.runpytest(*BASE, "--vita-resume", "tasks.json", "-n", "2", "--vita-report", "r.json")
    resumed.stdout.fnmatch_lines([f"resumed run {run_id}: 20 items reused, {ITEMS - 20} to run"])
    report = json.loads((project.path / "r.json").read_text())
    assert report["run"]["resumed"] == 20 and report["run"]["dir"].endswith(run_id)
    assert sum(r["resumed"] for r in report["results"]) == 20 and len(report["results"]) == ITEMS
    again = project.runpytest("tasks.json", *BASE, "--vita-resume", "-q")
    again.stdout.fnmatch_lines([f"resumed run {run_id}: {ITEMS} items reused, 0 to run"])
    selected = project.runpytest("tasks.json", *BASE, "--vita-resume", "-k", "U100001")
    selected.stdout.fnmatch_lines([f"resumed run {run_id}: 20 items reused, 0 to run"])
    assert _run_ids(project) == [run_id]


def test_a_changed_suite_file_is_not_counted_as_reused(project):
    assert project.runpytest("tasks.json", *BASE, "-k", "U100001").ret in (0, 1)
    tasks = json.loads((project.path / "tasks.json").read_text())
    (project.path / "tasks.json").write_text(json.dumps(tasks, indent=1))  # same tasks, other bytes
    resumed = project.runpytest("tasks.json", *BASE, "--vita-resume", "-k", "U100001")
    resumed.stdout.fnmatch_lines(["resumed run *: 0 items reused, 20 to run"])


def test_nothing_to_resume_is_a_usage_error(project):
    fresh = project.runpytest("tasks.json", *BASE, "--vita-resume")
    assert fresh.ret == pytest.ExitCode.USAGE_ERROR
    fresh.stderr.fnmatch_lines(["*--vita-resume: nothing to resume: no earlier run in *runs. Run without "
                                "--vita-resume to start a run*"])
    named = project.runpytest("tasks.json", *BASE, "--vita-resume", "--vita-run-id", "nightly")
    assert named.ret == pytest.ExitCode.USAGE_ERROR
    named.stderr.fnmatch_lines(["*nothing to resume: the run directory *nightly holds no journaled run*"])
    assert not (project.path / ".vitabench" / "runs").exists() or _run_ids(project) == []


def test_a_run_is_named_attached_and_the_old_spelling_says_so(project):
    assert project.runpytest("tasks.json", *BASE, "-k", "U100001 and t0").ret in (0, 1)
    [run_id] = _run_ids(project)
    old = project.runpytest("tasks.json", *BASE, "--vita-resume", run_id)
    assert old.ret == pytest.ExitCode.USAGE_ERROR
    old.stderr.fnmatch_lines([f"*'{run_id}' is not a test path. --vita-resume takes a run attached: "
                              f"--vita-resume={run_id} continues that run*"])
    run_dir = f".vitabench/runs/{run_id}"
    as_dir = project.runpytest("tasks.json", *BASE, "--vita-resume", run_dir)
    assert as_dir.ret == pytest.ExitCode.USAGE_ERROR and f"--vita-resume={run_dir}" in as_dir.stderr.str()
    for spelling in (run_id, run_dir):
        named = project.runpytest("tasks.json", *BASE, f"--vita-resume={spelling}", "-k", "U100001 and t0")
        named.stdout.fnmatch_lines([f"resumed run {run_id}: 5 items reused, 0 to run"])
        assert named.ret in (0, 1)
    missing = project.runpytest("tasks.json", *BASE, "--vita-resume=no-such-run")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*--vita-resume=no-such-run: no run directory with a manifest.json there*"])
