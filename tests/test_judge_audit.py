"""``vitabench judge-audit``: stub judges of known behaviour on 127.0.0.1, and the audit recovering what they planted.

The runs are real: the demo suite (and a slice of suites/paper) through the plugin with the rules judge and the
offline agent; the audit then judges their trajectories again through the real ``openai`` client against a
stub that knows the rules judge's truth and plants errors (:mod:`_stub_judge`).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _paths import REPO_ROOT
from _stub_judge import PlantedJudge
from _stub_llm import StubLLM

from pytest_vitabench.commands.cli import main
from pytest_vitabench.commands.judge_audit import JudgeSetup, audit_run, render_audit, repeat_seed
from pytest_vitabench.commands.rejudge import RejudgeError, replay, resolve_suites
from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.report.json_report import load_report
from pytest_vitabench.result import ItemResult
from pytest_vitabench.runs import open_run

pytestmark = pytest.mark.slow  # each module fixture runs the plugin on a suite first


def _run_suite(root, suite, *extra):
    report = root / "run.json"
    subprocess.run([sys.executable, "-m", "pytest", str(suite), "-q", "-p", "no:cacheprovider",
                    "--vita-report", str(report), *extra], cwd=root, capture_output=True, check=False)
    assert report.is_file()
    return report


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    return _run_suite(tmp_path_factory.mktemp("demo"), REPO_ROOT / "suites" / "demo" / "tasks.json",
                      "--vita-trials", "2", "--vita-memory", "none,full_context")


def cases(report_path):
    suites = resolve_suites(load_report(report_path))
    run = open_run(report_path)
    results = [ItemResult.model_validate(run.full_result(row["nodeid"])) for row in run.results]
    return [replay(r, suites[r.suite], "en")[0] for r in results]


FULL = (JudgeSetup("stub-judge", "full"),)


def audit(report_path, planted, setups=FULL, **options):
    stub = StubLLM()
    stub.responder = planted
    client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", cache="off"))
    try:
        return audit_run(report_path, list(setups), client=client, ledger=client.ledger, **options), stub
    finally:
        client.close()
        stub.close()


def within(value, interval):
    return interval is not None and interval[0] <= value <= interval[1]


def test_a_judge_that_flips_verdicts_at_random_is_measured_at_its_planted_rate(demo_run):
    planted = PlantedJudge(cases(demo_run), flip=0.2, seed=3)
    report, stub = audit(demo_run, planted)
    assert planted.unknown == 0  # every request was recognised as an item of the run
    setup = report["judge_audit"]["setups"][0]
    # every demo rubric has a machine check, so the audit sees exactly what the stub planted
    assert setup["n"] == planted.verdicts
    assert setup["counts"]["unmet_met"] == planted.false_pass and setup["counts"]["met_unmet"] == planted.false_fail
    assert within(0.8, setup["ci95"]["agreement"]) and within(0.2, setup["ci95"]["false_fail"])
    assert within(0.2, setup["ci95"]["false_pass"])
    assert 0.0 < setup["kappa"] < 0.8  # well below a trustworthy judge
    assert set(setup["by_domain"]) == {"delivery", "instore", "ota"}
    assert {"rating floor", "phrase the product carries", "address", "proactive question", "quantity",
            "time"} <= set(setup["by_kind"])
    assert len(setup["disagreements"]) == planted.false_pass + planted.false_fail
    first = setup["disagreements"][0]
    assert first["link"] == f"#item={first['nodeid']}" and first["judge_reason"] == "stub verdict"
    assert first["rules_reason"]
    assert setup["usage"]["requests"] == len(stub.requests) == report["judge_audit"]["items"] == 80
    # the audit report is a report: its results are the judge's, its judge block the audit's figures
    assert report["schema"].startswith("vitabench-report/") and report["judge"]["n"] == setup["n"]
    assert report["judge"]["kappa"] == pytest.approx(setup["kappa"])


def test_a_judge_biased_to_met_has_false_passes_and_no_false_fails(demo_run):
    planted = PlantedJudge(cases(demo_run), bias_met=0.5, seed=4)
    report, _ = audit(demo_run, planted)
    setup = report["judge_audit"]["setups"][0]
    assert setup["false_fail"] == 0.0 and setup["counts"]["unmet_met"] == planted.biased > 0
    assert within(0.5, setup["ci95"]["false_pass"])
    # the judge's Avg@k is above the truth's: the bias is credit the agent did not earn
    judged, truth = setup["metrics"]["judgings"][0]["none"]["avg"], setup["metrics"]["rules"]["none"]["avg"]
    assert judged > truth == 0.0


def test_malformed_replies_are_unscored_exactly_and_left_out_of_the_metrics(demo_run):
    planted = PlantedJudge(cases(demo_run), malformed=0.25, seed=5)
    report, stub = audit(demo_run, planted)
    setup = report["judge_audit"]["setups"][0]
    assert planted.unreadable > 0
    assert setup["unscored_items"] == planted.unreadable
    assert len(stub.requests) == 80 + planted.unreadable  # one repair request per unreadable reply
    results = [ItemResult.model_validate(r) for r in report["results"]]
    assert sum(r.unscored for r in results) == planted.unreadable
    n_unscored = sum(m["subtask"]["n_unscored"] for m in report["metrics"].values())
    assert n_unscored == planted.unreadable
    # the scored pairs are the rest, all correct (nothing else was planted)
    assert setup["agreement"] == 1.0 and setup["unscored"] > 0


def test_the_official_window_judge_is_audited_the_same_way(demo_run):
    planted = PlantedJudge(cases(demo_run), flip=0.2, malformed=0.1, seed=12)
    report, stub = audit(demo_run, planted, setups=[JudgeSetup("stub-judge", "window")])
    setup = report["judge_audit"]["setups"][0]
    assert planted.unknown == 0 and planted.ambiguous == 0
    assert len(stub.requests) > 80 + planted.unreadable  # several windows per item, a repair per unreadable one
    # every window answers anew: the last one decides, so each rubric is still flipped with probability 0.2
    assert within(0.8, setup["ci95"]["agreement"]) and within(0.2, setup["ci95"]["false_fail"])
    assert setup["unscored_items"] == planted.unreadable > 0


def test_repeated_judgings_give_the_flip_rate_and_its_effect_on_the_metrics(demo_run):
    planted = PlantedJudge(cases(demo_run), flip=0.1, seed=6)
    report, stub = audit(demo_run, planted, repeats=3)
    flip = report["judge_audit"]["setups"][0]["flip"]
    assert len(stub.requests) == 3 * 80 and flip["repeats"] == 3 and flip["rubrics"] == 396
    expected = 1 - (0.9 ** 3 + 0.1 ** 3)  # a rubric keeps its verdict only if all three agree
    assert within(expected, flip["ci95"]["rate"])
    judgings = report["judge_audit"]["setups"][0]["metrics"]["judgings"]
    assert len(judgings) == 3 and len({j["full_context"]["avg"] for j in judgings}) > 1
    assert repeat_seed(7, 0) == 7 and repeat_seed(7, 1) != repeat_seed(7, 2)


def test_a_second_configuration_is_audited_and_compared_with_the_first(demo_run):
    planted = PlantedJudge(cases(demo_run), flip=0.1, seed=7)
    setups = [JudgeSetup("stub-judge", "full", 1), JudgeSetup("stub-judge", "full", 3)]
    report, stub = audit(demo_run, planted, setups=setups)
    one, three = report["judge_audit"]["setups"]
    assert one["usage"]["requests"] == 80 and three["usage"]["requests"] == 240  # three votes cost three times
    assert three["agreement"] >= one["agreement"]  # the majority of three votes flips less often
    between = report["judge_audit"]["between"][0]
    assert between["reference"] == one["label"] and between["other"] == three["label"] and between["n"] == 396
    lines = render_audit(report["judge_audit"])
    assert any(line.startswith("== stub-judge full x3 against stub-judge full x1") for line in lines)


def test_the_command_writes_the_audit_prints_it_and_gates_on_kappa(demo_run, tmp_path, capsys):
    stub = StubLLM()
    stub.responder = PlantedJudge(cases(demo_run), flip=0.2, seed=8)
    out = tmp_path / "audit.json"
    args = ["judge-audit", str(demo_run), "--vita-judge-model", "stub-judge", "--vita-judge-args", "mode=full",
            "--vita-base-url", stub.base_url, "--vita-api-key-env", "VITA_NO_SUCH_VAR", "--vita-cache", "off",
            "-o", str(out)]
    try:
        assert main([*args, "--vita-fail-under", "judge.kappa=0.9"]) == 1
        printed = capsys.readouterr().out
        assert "MISSED: judge.kappa = " in printed and "disagreements (" in printed
        assert "#item=suites/demo/tasks.json::" in printed and "audit.html#item=" in printed
        assert json.loads(out.read_text())["judge_audit"]["schema"] == "vitabench-judge-audit/1"
        stub.responder = PlantedJudge(cases(demo_run), seed=9)  # a perfect judge
        assert main([*args, "--vita-fail-under", "judge.kappa=0.9,judge.agreement=0.99"]) == 0
        assert "ok: judge.kappa = 1.000 over 396 rubrics >= 0.900" in capsys.readouterr().out
    finally:
        stub.close()


@pytest.mark.parametrize("extra, message", [
    (["--vita-judge-model", "rules"], "must name an LLM judge"),
    (["--vita-judge-model", "j", "--vita-fail-under", "judge.nope=0.5"], "unknown judge figure 'nope'"),
    (["--vita-judge-model", "j", "--vita-fail-under", "judge.kappa=2"], "outside [-1, 1]"),
])
def test_bad_arguments_are_refused_with_a_clear_message(demo_run, capsys, extra, message):
    assert main(["judge-audit", str(demo_run), "--vita-base-url", "http://127.0.0.1:9/v1", *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_report_and_a_bad_sample_are_refused(tmp_path, capsys):
    assert main(["judge-audit", str(tmp_path / "nope.json"), "--vita-judge-model", "j",
                 "--vita-base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "nope.json" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["judge-audit", "x.json", "--vita-judge-model", "j", "--sample", "0"])
    assert "--sample must be a whole number >= 1, got 0" in capsys.readouterr().err


def test_a_run_without_machine_checks_has_no_truth_to_audit_against(tmp_path):
    from _suites import tiny_suite, write_suite

    data = tiny_suite()
    for user in data:
        for sub in user["subtasks"]:
            sub.pop("rubric_checks", None)
    suite = write_suite(tmp_path / "tasks.json", data)
    report = _run_suite(tmp_path, suite, "--vita-trials", "1", "--vita-memory", "none")
    with pytest.raises(RejudgeError, match="has a machine-checked rubric"):
        audit(report, PlantedJudge([]))


def test_a_sample_audits_that_many_items_drawn_with_the_seed(demo_run):
    planted = PlantedJudge(cases(demo_run), seed=10)
    report, stub = audit(demo_run, planted, sample=12, seed=1)
    block = report["judge_audit"]
    assert block["items"] == 12 and block["sampled"] and len(stub.requests) == 12
    again, _ = audit(demo_run, PlantedJudge(cases(demo_run), seed=10), sample=12, seed=1)
    assert [r["nodeid"] for r in again["results"]] == [r["nodeid"] for r in report["results"]]


def test_a_slice_of_the_paper_suite_recovers_the_planted_rates(tmp_path):
    users = " or ".join(f"U00000{i}" for i in range(1, 7))
    report_path = _run_suite(tmp_path, REPO_ROOT / "suites" / "paper" / "tasks.vita.json.gz", "--vita-trials", "1",
                             "--vita-memory", "full_context", "-k", users)
    planted = PlantedJudge(cases(report_path), flip=0.1, malformed=0.05, seed=11)
    report, _ = audit(report_path, planted)
    setup = report["judge_audit"]["setups"][0]
    assert planted.unknown == 0 and setup["n_users"] == 6
    assert within(0.9, setup["ci95"]["agreement"]) and within(0.1, setup["ci95"]["false_fail"])
    assert setup["unscored_items"] == planted.unreadable > 0
