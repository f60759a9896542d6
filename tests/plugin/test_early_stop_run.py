"""``--vita-early-stop`` in real pytest runs of the demo suite: the run stops starting items once its gate's
verdict is known, the verdict equals the full run's, the items left are "not run: decided" (neither passed nor
failed), serial and ``-n 2`` alike, and ``--vita-resume`` completes the run."""

from __future__ import annotations

import json

import pytest
from _paths import REPO_ROOT

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
BASE = ["tasks.json", "-p", "no:cacheprovider"]


def _report(pytester: pytest.Pytester, name: str) -> dict:
    return json.loads((pytester.path / name).read_text())


@pytest.mark.parametrize("gate", ["avg@4=0.40", "avg@4=0.95", "pass^4=0.5,avg@4=0.7"])
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "n2"])
def test_exact_early_stopping_gives_the_full_runs_verdict_on_fewer_items(demo, gate, workers):
    if workers:
        pytest.importorskip("xdist")
    full = demo.runpytest(*BASE, "--vita-fail-under", gate, "--vita-report", "full.json")
    early = demo.runpytest(*BASE, *workers, "--vita-fail-under", gate, "--vita-early-stop", "exact",
                           "--vita-report", "early.json")
    assert early.ret == full.ret and early.ret in (0, 1)  # the gate's verdict, as the full run's
    report = _report(demo, "early.json")
    if workers and "early_stop" not in report["run"]:
        # Under -n 2 each worker queues 32 of the 80 items: in the order they happen to finish, the verdict may be
        # known only once every item was in flight. The run then ends as a full run, with its verdict.
        assert len(report["results"]) == 80 and "not_run" not in report
        return
    stop = report["run"]["early_stop"]
    assert stop["mode"] == "exact" and stop["selected"] == 80
    assert stop["passes"] is (full.ret == 0)
    # Decided before the last item; the items in flight at the decision finish (under -n 2, perhaps all the rest).
    assert stop["decided_after"] < 80 and stop["decided_after"] <= len(report["results"]) <= 80
    not_run = report.get("not_run", [])  # none when the items in flight at the decision were all the rest
    assert len(not_run) + len(report["results"]) == 80
    early.stdout.fnmatch_lines(["vitabench early stop: decided after * of 80 items*not run: decided",
                                "decided after * of 80 items (--vita-early-stop): exit status *"])
    assert {r["outcome"] for r in report["results"]} <= {"passed", "failed"}


def test_statistical_early_stopping_decides_a_gate_far_from_its_figure(demo):
    result = demo.runpytest(*BASE, "--vita-fail-under", "avg@4=0.40", "--vita-early-stop", "alpha=0.05",
                            "--vita-report", "r.json")
    assert result.ret == 0
    stop = _report(demo, "r.json")["run"]["early_stop"]
    assert stop["mode"] == "alpha=0.05" and stop["passes"] is True and stop["decided_after"] < 80


def test_resume_completes_a_run_early_stopping_left_short(demo):
    demo.runpytest(*BASE, "--vita-fail-under", "avg@4=0.40", "--vita-early-stop", "exact", "--vita-report",
                   "early.json")
    ran = len(_report(demo, "early.json")["results"])
    resumed = demo.runpytest(*BASE, "--vita-resume", "--vita-report", "all.json")
    resumed.stdout.fnmatch_lines([f"resumed run *: {ran} items reused, {80 - ran} to run"])
    full = demo.runpytest(*BASE, "--vita-report", "full.json")
    assert full.ret == resumed.ret
    assert _report(demo, "all.json")["metrics"] == _report(demo, "full.json")["metrics"]


@pytest.mark.parametrize(("args", "message"), [
    (["--vita-early-stop", "exact"], "*--vita-early-stop * needs a gate*--vita-fail-under*"),
    (["--vita-early-stop", "sometimes", "--vita-fail-under", "avg@4=0.4"], "*--vita-early-stop takes off, exact*"),
    (["--vita-early-stop", "alpha=0.9", "--vita-fail-under", "avg@4=0.4"], "*alpha must be a number in (0, 0.5]*"),
])
def test_bad_early_stop_values_are_usage_errors(demo, args, message):
    result = demo.runpytest(*BASE, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize(("gate", "status"), [("avg@4=0.40", 0), ("avg@4=0.95", 1)])
def test_merged_shards_that_stopped_early_are_decided_again_as_one_run(demo, capsys, gate, status):
    from pytest_vitabench.commands.cli import main

    for index in (1, 2):
        demo.runpytest(*BASE, "--vita-shard", f"{index}/2", "--vita-fail-under", gate, "--vita-early-stop", "exact")
    full = demo.runpytest(*BASE, "--vita-fail-under", gate)
    (run_dir,) = {p.parent.parent for p in demo.path.glob(".vitabench/runs/*/shard-*/manifest.json")}
    merged = demo.path / "merged.json"
    assert main(["merge", str(run_dir), "-o", str(merged), "--vita-fail-under", gate]) == status == full.ret
    report = json.loads(merged.read_text())
    assert report["run"]["not_run"] and set(report["run"]["not_run"].values()) == {"decided"}
    assert "decided after" in capsys.readouterr().out


def test_a_merged_gate_the_shards_results_cannot_decide_says_so(demo, capsys):
    from pytest_vitabench.commands.cli import main

    for index in (1, 2):
        demo.runpytest(*BASE, "--vita-shard", f"{index}/2", "--vita-fail-under", "avg@4=0.40",
                       "--vita-early-stop", "exact")
    (run_dir,) = {p.parent.parent for p in demo.path.glob(".vitabench/runs/*/shard-*/manifest.json")}
    # A gate the shards did not decide on: the items they left could still change it.
    assert main(["merge", str(run_dir), "-o", str(demo.path / "m.json"), "--vita-fail-under", "avg@4=0.80"]) == 6
    assert "the merged gate is not decided" in capsys.readouterr().err


def test_early_stopping_that_cannot_place_its_items_says_so_and_runs_to_the_end(pytester):
    # A suite outside the rootdir: pytest names its items without the file, so the items left cannot be placed.
    (pytester.path / "project").mkdir()
    (pytester.path / "project" / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "elsewhere").mkdir()
    (pytester.path / "elsewhere" / "tasks.json").write_bytes(DEMO.read_bytes())
    result = pytester.runpytest("elsewhere/tasks.json", "-p", "no:cacheprovider", "--rootdir",
                                str(pytester.path / "project"), "--vita-fail-under", "avg@4=0.40",
                                "--vita-early-stop", "exact", "--vita-report", "r.json")
    result.stdout.fnmatch_lines(["vitabench: early stopping is off: * selected item(s) it cannot place*"])
    assert result.ret == 0 and "early_stop" not in json.loads((pytester.path / "r.json").read_text())["run"]
