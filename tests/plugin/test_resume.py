"""Journal and resume: kill -9 mid-run, --vita-resume completes it; mismatches are usage errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from _engine_helpers import REQUESTS_PER_ITEM, scripted_stub, write_many

ITEMS = 6 * 2 * 2  # users x subtasks x trials
BASE = ["-p", "no:cacheprovider", "--vita-model", "stub-model", "--vita-memory", "none", "--vita-trials", "2",
        "--vita-concurrency", "4", "--vita-cache", "off"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    write_many(pytester.path / "tasks.json", users=6, subtasks=2)
    return pytester


def _journal_lines(root: Path) -> int:
    return sum(len(f.read_bytes().splitlines()) for f in root.glob(".vitabench/runs/*/journal/*.jsonl"))


def _pytest(project, stub, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", *BASE, "--vita-base-url", stub.base_url, *args],
                          cwd=project.path, capture_output=True, text=True, timeout=600)


def test_kill_9_then_resume_pays_only_for_unfinished_items_and_matches_an_uninterrupted_run(project, tmp_path):
    stub = scripted_stub(delay=0.3)
    try:
        victim = subprocess.Popen([sys.executable, "-m", "pytest", *BASE, "--vita-base-url", stub.base_url],
                                  cwd=project.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 300
        while _journal_lines(project.path) < ITEMS // 2 and time.time() < deadline and victim.poll() is None:
            time.sleep(0.05)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        journaled = _journal_lines(project.path)
        assert 0 < journaled < ITEMS, journaled
        first_requests = len(stub.requests)
        in_flight_at_kill = first_requests - journaled * REQUESTS_PER_ITEM
        assert 0 <= in_flight_at_kill <= 4 * REQUESTS_PER_ITEM  # at most --vita-concurrency items were cut

        resumed = _pytest(project, stub, "--vita-resume", "--vita-report", "resumed.json")
        assert resumed.returncode == 1, resumed.stdout[-3000:] + resumed.stderr[-3000:]
        second_requests = len(stub.requests) - first_requests
        assert second_requests == (ITEMS - journaled) * REQUESTS_PER_ITEM  # only the unfinished items
        report = json.loads((project.path / "resumed.json").read_text())
        assert report["run"]["completed"] == ITEMS and not report["run"]["partial"]
        assert report["run"]["resumed"] == journaled and len(report["results"]) == ITEMS
        assert sum(r["resumed"] for r in report["results"]) == journaled
        assert "partial" not in resumed.stdout

        fresh_dir = tmp_path / "fresh"
        fresh_dir.mkdir()
        (fresh_dir / "tasks.json").write_text((project.path / "tasks.json").read_text())
        (fresh_dir / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
        fresh = subprocess.run([sys.executable, "-m", "pytest", *BASE, "--vita-base-url", stub.base_url,
                                "--vita-report", "fresh.json"], cwd=fresh_dir, capture_output=True, text=True,
                               timeout=600)
        assert fresh.returncode == 1
        uninterrupted = json.loads((fresh_dir / "fresh.json").read_text())
        assert report["metrics"] == uninterrupted["metrics"]
        outcome = {r["nodeid"]: (r["outcome"], r["reward"]) for r in uninterrupted["results"]}
        assert {r["nodeid"]: (r["outcome"], r["reward"]) for r in report["results"]} == outcome

        # a third resume finds everything done: no request at all, the same report
        before = len(stub.requests)
        again = _pytest(project, stub, "--vita-resume", "--vita-report", "again.json")
        assert len(stub.requests) == before and again.returncode == 1
        assert json.loads((project.path / "again.json").read_text())["metrics"] == uninterrupted["metrics"]
    finally:
        stub.close()


def test_resume_with_other_settings_is_a_usage_error_naming_them(project):
    stub = scripted_stub(delay=0.0)
    try:
        first = _pytest(project, stub, "-k", "U1 and s1")
        assert first.returncode == 1
        runs = list((project.path / ".vitabench" / "runs").iterdir())
        assert len(runs) == 1 and (runs[0] / "manifest.json").is_file()
        manifest = json.loads((runs[0] / "manifest.json").read_text())
        assert manifest["config"]["trials"] == 2 and len(manifest["config_sha256"]) == 64
        assert manifest["selection"]["planned"] == ITEMS and manifest["selection"]["keyword"] == "U1 and s1"
        before = len(stub.requests)
        mismatch = _pytest(project, stub, "--vita-resume", "--vita-seed", "7", "--vita-max-steps", "50")
        assert mismatch.returncode == pytest.ExitCode.USAGE_ERROR
        assert "seed: saved 0, now 7" in mismatch.stderr and "max_steps: saved 100, now 50" in mismatch.stderr
        assert "Traceback" not in mismatch.stderr and len(stub.requests) == before
        named = _pytest(project, stub, f"--vita-resume={runs[0]}", "--vita-trials", "1")
        assert named.returncode == pytest.ExitCode.USAGE_ERROR and "trials: saved 2, now 1" in named.stderr
        missing = _pytest(project, stub, "--vita-resume=no-such-run")
        assert missing.returncode == pytest.ExitCode.USAGE_ERROR and "no run directory" in missing.stderr
        # the same settings (another endpoint port is fine): the 2 finished items are reused
        ok = _pytest(project, stub, "--vita-resume", "-k", "U1")
        assert ok.returncode == 1 and len(stub.requests) - before == 2 * REQUESTS_PER_ITEM
    finally:
        stub.close()


def _internal_error(run: subprocess.CompletedProcess[str]) -> str:
    """The run's INTERNALERROR lines, whole (an assertion message's repr would cut them)."""
    return "\n".join(line for line in (run.stdout + run.stderr).splitlines() if line.startswith("INTERNALERROR"))


def test_a_crashed_xdist_worker_item_is_an_error_once(project):
    pytest.importorskip("xdist")
    project.makeconftest('''
import os, pytest

@pytest.fixture(autouse=True)
def crash_once(request):
    if request.node.nodeid == "tasks.json::U1::s2[none-t0]":
        os._exit(3)
''')
    stub = scripted_stub(delay=0.0)
    try:
        run = _pytest(project, stub, "-n", "2", "--vita-report", "crash.json")
        internal = _internal_error(run)
        if internal:
            # Seen twice in full-suite runs on a fresh clone (2 of about 8), never in 200 runs of this test
            # alone: the controller raised while xdist replaced the crashed worker. A second run tells a race
            # from a regression; the warning carries the whole traceback into CI's summary, for the fix.
            warnings.warn(f"the crashed-worker run ended in an INTERNALERROR; running it again:\n{internal}",
                          stacklevel=1)
            run = _pytest(project, stub, "-n", "2", "--vita-report", "crash.json")
            if _internal_error(run):
                pytest.fail(f"INTERNALERROR twice:\n{_internal_error(run)}", pytrace=False)
        report = json.loads((project.path / "crash.json").read_text())
        crashed = [r for r in report["results"] if r["nodeid"] == "tasks.json::U1::s2[none-t0]"]
        if not (len(crashed) == 1 and crashed[0]["outcome"] == "error" and "crashed" in crashed[0]["error"]):
            found = sorted(r["nodeid"] for r in report["results"])
            pytest.fail(f"crashed item not reported once as an error: {crashed}\nresults: {found}\n"
                        f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}", pytrace=False)
        assert len(report["results"]) == ITEMS and report["metrics"]["none"]["subtask"]["n_errors"] >= 1
        assert run.stdout.count("VitaBench results") == 1
    finally:
        stub.close()
