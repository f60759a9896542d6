"""--vita-shard and `vitabench merge` in real pytest runs of the demo suite: N shards merged report what one
unsharded run with the same seed reports; pieces that do not belong together are refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _engine_helpers import scripted_stub, write_many
from _paths import REPO_ROOT
from _redis import redis

from pytest_vitabench.commands.cli import main
from pytest_vitabench.runs import open_run

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
BASE = ["tasks.json", "-p", "no:cacheprovider", "--vita-trials", "2", "--vita-memory", "full_context,none"]
ITEMS = 20 * 2 * 2  # demo subtasks x backends x trials


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    # a copy, so that the rootdir (and the runs under it) is the test's own directory
    (pytester.path / "tasks.json").write_bytes(DEMO.read_bytes())
    return pytester


def _outcomes(report: dict) -> dict[str, tuple]:
    return {r["nodeid"]: (r["outcome"], r["reward"], tuple((x["text"], x["met"]) for x in r["rubrics"]),
                          r["termination"], r["steps"]) for r in report["results"]}


def _run_dirs(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob(".vitabench/runs/*/shard-*/manifest.json"))


@pytest.mark.slow
def test_four_shards_merged_equal_one_unsharded_run(project, capsys):
    for index in range(1, 5):
        extra = ["-n", "2"] if index == 2 else []  # a shard spread over xdist workers journals as one piece
        result = project.runpytest(*BASE, *extra, "--vita-shard", f"{index}/4")
        result.stdout.fnmatch_lines([f"vitabench shard {index}/4 (from --vita-shard)*",
                                     "vitabench run shards-*: journal *shard-*-of-4"])
        assert result.ret in (0, 1)
    full = project.runpytest(*BASE, "--vita-shard", "off", "--vita-report", "full.json")
    assert full.ret == 1

    shard_dirs = _run_dirs(project.path)
    assert [p.name for p in shard_dirs] == [f"shard-{i}-of-4" for i in range(1, 5)]
    assert len({p.parent for p in shard_dirs}) == 1  # one run id, derived alike by every shard
    per_shard = [len(open_run(p).results) for p in shard_dirs]
    assert sum(per_shard) == ITEMS and all(n % 2 == 0 for n in per_shard)  # whole chains: both trials together
    for path in shard_dirs:  # a user x backend chain is in one shard only
        chains = {(r["user_id"], r["memory"]) for r in open_run(path).results}
        others = {(r["user_id"], r["memory"]) for p in shard_dirs if p != path for r in open_run(p).results}
        assert not chains & others

    capsys.readouterr()
    assert main(["merge", str(shard_dirs[0].parent), "-o", str(project.path / "merged.json")]) == 0
    printed = capsys.readouterr().out
    assert "4 piece(s) of run shards-" in printed and "partial" not in printed
    merged = json.loads((project.path / "merged.json").read_text())
    unsharded = json.loads((project.path / "full.json").read_text())
    assert merged["metrics"] == unsharded["metrics"]  # intervals included: same items, same seed
    assert _outcomes(merged) == _outcomes(unsharded)
    assert merged["failures"] == unsharded["failures"]
    assert merged["run"]["completed"] == ITEMS and not merged["run"]["partial"]

    # the merged report reads like a run's: trajectories come from each shard's directory
    run = open_run(project.path / "merged.json")
    some = run.results[-1]["nodeid"]
    assert run.messages(some) == open_run(project.path / "full.json").messages(some) != []
    assert main(["view", str(project.path / "merged.json"), "-o", str(project.path / "m.html"), "--no-open"]) == 0
    assert main(["view", str(project.path / "full.json"), "-o", str(project.path / "f.html"), "--no-open"]) == 0
    assert abs((project.path / "m.html").stat().st_size - (project.path / "f.html").stat().st_size) < 200


@pytest.mark.slow
def test_merged_shards_of_a_selection_equal_the_unsharded_selection_in_every_metric(project, capsys):
    # three backends (two of them the paired references), 2 of 4 trials selected, 4 users over 2 shards: each
    # shard holds several users of every backend, and the metrics' k is the selection's in both runs
    base = ["tasks.json", "-p", "no:cacheprovider", "--vita-memory", "none,full_context,groundtruth",
            "-k", "t1 or t2", "--vita-run-id", "sel"]
    for index in (1, 2):
        extra = ["-n", "2"] if index == 2 else []
        assert project.runpytest(*base, *extra, "--vita-shard", f"{index}/2").ret in (0, 1)
    full = project.runpytest(*base[:-2], "--vita-shard", "off", "--vita-report", "full.json")
    full.stdout.fnmatch_lines(["VitaBench metrics (k=2: 2 of 4 trials per unit selected; *"])
    for path in _run_dirs(project.path):
        users = {(r["user_id"], r["memory"]) for r in open_run(path).results}
        assert len({u for u, _ in users}) >= 2 and len({m for _, m in users}) >= 2
    capsys.readouterr()
    assert main(["merge", str(project.path / ".vitabench/runs/sel"), "-o", str(project.path / "merged.json")]) == 0
    assert "VitaBench metrics (k=2: 2 of 4 trials per unit selected; " in capsys.readouterr().out
    merged = json.loads((project.path / "merged.json").read_text())
    unsharded = json.loads((project.path / "full.json").read_text())
    assert merged["metrics"] == unsharded["metrics"]  # the whole object: every level, breakdown, interval, pair
    paired = merged["metrics"]["full_context"]["paired"]
    assert set(paired) == {"vs_none", "vs_groundtruth"} and paired["vs_none"]["n_users"] == 4
    assert merged["metrics"]["full_context"]["k"] == 2
    assert merged["run"]["trials_selected"] == unsharded["run"]["trials_selected"] == 2
    # shards killed before their end leave no summary.json: their manifests still say what they selected
    for path in _run_dirs(project.path):
        (path / "summary.json").unlink()
    assert main(["merge", str(project.path / ".vitabench/runs/sel"), "-o", str(project.path / "m2.json")]) == 0
    assert json.loads((project.path / "m2.json").read_text())["metrics"] == unsharded["metrics"]


def test_a_missing_shard_makes_the_merge_partial_and_a_gate_untrustworthy(project, capsys):
    for index in (1, 3):
        project.runpytest(*BASE, "--vita-shard", f"{index}/3", "--vita-run-id", "nightly")
    capsys.readouterr()
    status = main(["merge", str(project.path / ".vitabench/runs/nightly"), "-o", str(project.path / "m.json"),
                   "--vita-fail-under", "avg=0.1"])
    printed = capsys.readouterr().out
    assert status == 6, printed
    assert "shard(s) 2/3 of the run missing" in printed
    assert "exit status 6 (infrastructure errors)" in printed
    report = json.loads((project.path / "m.json").read_text())
    assert report["run"]["partial"] and report["run"]["planned"] == ITEMS
    assert report["run"]["completed"] < ITEMS


def test_merge_refuses_pieces_with_other_settings_listing_them(project, capsys):
    project.runpytest(*BASE, "--vita-shard", "1/2", "--vita-run-id", "a")
    project.runpytest(*BASE, "--vita-shard", "2/2", "--vita-run-id", "b", "--vita-seed", "7",
                      "--vita-max-steps", "50")
    capsys.readouterr()
    status = main(["merge", str(project.path / ".vitabench/runs/a"), str(project.path / ".vitabench/runs/b"),
                   "-o", str(project.path / "m.json")])
    err = capsys.readouterr().err
    assert status == 4
    assert "they measured different things" in err
    assert "max_steps is 50" in err and "seed is 7" in err
    assert not (project.path / "m.json").exists()  # nothing half-written


def test_merge_refuses_an_item_in_two_pieces(project, capsys):
    project.runpytest(*BASE, "--vita-shard", "1/2", "--vita-run-id", "first", "-k", "U100001")
    project.runpytest(*BASE, "--vita-shard", "1/2", "--vita-run-id", "again", "-k", "U100001")
    capsys.readouterr()
    status = main(["merge", str(project.path / ".vitabench/runs/first"), str(project.path / ".vitabench/runs/again"),
                   "-o", str(project.path / "m.json")])
    err = capsys.readouterr().err
    assert status == 4 and "is in both" in err and "the same items run twice" in err


def test_merge_names_paths_that_are_no_piece(project, capsys):
    (project.path / "empty").mkdir()
    (project.path / "notes.json").write_text("{}")
    status = main(["merge", str(project.path / "empty"), str(project.path / "gone"), "-o", "m.json"])
    err = capsys.readouterr().err
    assert status == 4
    assert "empty: a directory without any run directory" in err and "gone: no such report or run directory" in err
    assert main(["merge", str(project.path / "notes.json"), "-o", "m.json"]) == 4
    assert "is not a VitaBench report" in capsys.readouterr().err


def test_a_shards_gate_says_it_is_about_the_shard(project):
    result = project.runpytest(*BASE, "--vita-shard", "1/4", "--vita-fail-under", "avg=0.99")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAIL-UNDER (shard 1/4): *",
                                 "shard 1/4: exit status 1 (gate failed)*this shard's items only*vitabench merge*"])


def test_the_job_runner_names_the_shard_and_an_explicit_flag_wins(project, monkeypatch):
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "5")
    monkeypatch.setenv("SLURM_ARRAY_TASK_MIN", "4")
    monkeypatch.setenv("SLURM_ARRAY_TASK_COUNT", "3")
    detected = project.runpytest(*BASE, "--collect-only")
    detected.stdout.fnmatch_lines(["vitabench shard 2/3 (from SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1*"])
    explicit = project.runpytest(*BASE, "--collect-only", "--vita-shard", "3/4")
    explicit.stdout.fnmatch_lines(["vitabench shard 3/4 (from --vita-shard)*"])
    off = project.runpytest(*BASE, "--collect-only", "--vita-shard", "off")
    off.stdout.no_fnmatch_line("*vitabench shard*")
    off.stdout.fnmatch_lines([f"*{ITEMS} tests collected*"])


@pytest.mark.parametrize(("args", "message"), [
    (["--vita-shard", "5/4"], "--vita-shard: shard 5 of 4 is outside 1..4 (shards count from 1)"),
    (["--vita-shard", "2"], "--vita-shard must be I/N*"),
    (["--vita-shard", "0/0"], "--vita-shard: the number of shards must be at least 1*"),
    (["--vita-run-id", "../elsewhere"], "--vita-run-id must be 1-128 letters, digits*"),
    (["--vita-run-id", "shard-1-of-2"], "--vita-run-id must be*not with 'shard-'*"),
])
def test_bad_shard_options_are_usage_errors_naming_the_option(project, args, message):
    result = project.runpytest(*BASE, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}"])


def test_an_indexed_job_without_the_count_is_a_usage_error(project, monkeypatch):
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "1")
    result = project.runpytest(*BASE)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*JOB_COMPLETION_INDEX=1 says this is a shard of a Kubernetes Indexed Job, but not "
                                 "of how many: give --vita-shard auto/N*"])
    counted = project.runpytest(*BASE, "--collect-only", "--vita-shard", "auto/2")
    counted.stdout.fnmatch_lines(["vitabench shard 2/2 (from JOB_COMPLETION_INDEX (0-based)*"])


def test_a_run_id_with_other_settings_is_refused(project):
    assert project.runpytest(*BASE, "--vita-run-id", "mine", "-k", "U100001").ret in (0, 1)
    again = project.runpytest(*BASE, "--vita-run-id", "mine", "--vita-seed", "3", "-k", "U100001")
    assert again.ret == pytest.ExitCode.USAGE_ERROR
    again.stderr.fnmatch_lines(["*the run directory *mine holds a run with other settings:*",
                                "*seed: saved 0, now 3*"])


def test_resume_on_a_shard_continues_its_own_directory(project):
    first = project.runpytest(*BASE, "--vita-shard", "2/2", "--vita-run-id", "again", "-k", "U100001 or U100002")
    assert first.ret in (0, 1)
    resumed = project.runpytest(*BASE, "--vita-shard", "2/2", "--vita-run-id", "again", "-k", "U100001 or U100002",
                                "--vita-resume", "--vita-report", "resumed.json")
    assert resumed.ret == first.ret
    report = json.loads((project.path / "resumed.json").read_text())
    assert report["results"] and all(r["resumed"] for r in report["results"])
    assert report["run"]["dir"].endswith("again/shard-2-of-2")


def test_the_parent_of_shards_is_not_read_as_one_run(project):
    project.runpytest(*BASE, "--vita-shard", "1/2", "--vita-run-id", "two", "-k", "U100001")
    with pytest.raises(ValueError, match="holds the shards of a run.*vitabench merge"):
        open_run(project.path / ".vitabench/runs/two")


SHARD_ARGS = ["-p", "no:cacheprovider", "--vita-model", "stub-model", "--vita-memory", "none", "--vita-trials", "2",
              "--vita-concurrency", "4", "--vita-cache", "off", "--vita-limits", "in-flight=2",
              "--vita-preflight", "off"]


@pytest.mark.slow
def test_two_shards_on_one_redis_hold_the_runs_in_flight_limit_and_report_no_password(pytester, redis_url):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    write_many(pytester.path / "tasks.json", users=4, subtasks=2)
    stub = scripted_stub(delay=0.05)
    url = redis_url.replace("redis://", "redis://:not-a-real-pass@")
    redis.Redis.from_url(redis_url).config_set("requirepass", "not-a-real-pass")  # a password in the URL
    try:
        shards = [subprocess.Popen([sys.executable, "-m", "pytest", *SHARD_ARGS, "--vita-base-url",
                                    stub.base_url, "--vita-limits", f"url={url}", "--vita-shard", f"{i}/2",
                                    "--vita-report", f"r{i}.json"], cwd=pytester.path,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                  for i in (1, 2)]
        outputs = [p.communicate(timeout=300)[0] for p in shards]
    finally:
        stub.close()
    assert all(p.returncode == 1 for p in shards), outputs  # odd trials fail by design; no error
    assert len(stub.requests) == 4 * 2 * 2 * 3
    assert stub.peak_live <= 2  # both shards together, not 2 each
    for i in (1, 2):
        text = (pytester.path / f"r{i}.json").read_text()
        assert "not-a-real-pass" not in text and '"limits_url": "redis://127.0.0.1:' in text


def test_merging_shard_reports_gates_compares_and_writes_the_step_summary(project, capsys, monkeypatch, tmp_path):
    select = ["-k", "U100001 or U100003"]
    for index in (1, 2):
        project.runpytest(*BASE, *select, "--vita-shard", f"{index}/2", "--vita-report", f"r{index}.json")
    project.runpytest(*BASE, *select, "--vita-shard", "off", "--vita-report", "base.json")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    capsys.readouterr()
    status = main(["merge", str(project.path / "r1.json"), str(project.path / "r2.json"), "-o",
                   str(project.path / "m.json"), "--vita-fail-under", "full_context:avg=0.5",
                   "--vita-baseline", str(project.path / "base.json"), "--vita-fail-regression", "0.05"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "exit status 0: every gate passed" in printed
    merged = json.loads((project.path / "m.json").read_text())
    base = json.loads((project.path / "base.json").read_text())
    assert merged["metrics"] == base["metrics"] and _outcomes(merged) == _outcomes(base)
    comparison = merged["comparison"]  # against the same run made unsharded: nothing changed
    assert comparison["delta"] == 0 and comparison["regressed"] == comparison["fixed"] == []
    assert comparison["settings"] == {}  # how the run was split is no setting that differs
    text = summary.read_text()
    assert text.startswith("## VitaBench results (merged shards)") and "exit status 0" in text
    # the same pieces under a gate they miss: exit 1, named in the summary too
    assert main(["merge", str(project.path / "r1.json"), str(project.path / "r2.json"), "-o",
                 str(project.path / "m2.json"), "--vita-fail-under", "avg=0.99"]) == 1
    assert "FAIL-UNDER: " in capsys.readouterr().out


def _without_retries(usage: dict) -> dict:
    return {**usage, "roles": {role: {k: v for k, v in row.items() if k != "retries"}
                               for role, row in usage["roles"].items()}}


def test_merged_llm_usage_and_cost_equal_the_unsharded_runs(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    write_many(pytester.path / "tasks.json", users=4, subtasks=2)
    stub = scripted_stub(delay=0.0)
    args = ["-p", "no:cacheprovider", "--vita-model", "stub-model", "--vita-memory", "none", "--vita-trials", "2",
            "--vita-cache", "off", "--vita-prices", "stub-model=1.0/2.0", "--vita-base-url", stub.base_url]
    try:
        for index in (1, 2):
            pytester.runpytest(*args, "--vita-shard", f"{index}/2", "--vita-run-id", "llm")
        pytester.runpytest(*args, "--vita-shard", "off", "--vita-report", "one.json")
    finally:
        stub.close()
    assert main(["merge", str(pytester.path / ".vitabench/runs/llm"), "-o", str(pytester.path / "m.json")]) == 0
    merged = json.loads((pytester.path / "m.json").read_text())
    one = json.loads((pytester.path / "one.json").read_text())
    # A retry is the machine's timing (a request that timed out under load), not the run's: left out.
    assert _without_retries(merged["usage"]) == _without_retries(one["usage"])
    assert merged["usage"]["total"]["requests"] == 4 * 2 * 2 * 3
    assert merged["usage"]["total"]["cost"] > 0
    assert merged["metrics"] == one["metrics"] and _outcomes(merged) == _outcomes(one)
