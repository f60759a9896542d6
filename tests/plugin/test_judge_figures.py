"""An LLM-judged run reports how often its judge agreed with the machine checks, gates on it, and never scores a
judge failure as the agent's: the plugin under pytester with two xdist workers and a judge stub on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from _stub_llm import StubLLM

pytestmark = pytest.mark.slow  # several plugin runs under xdist each


def _always_met(request):
    return {"content": json.dumps([{"rubric_idx": i, "met": True, "justification": "looks fine"} for i in (1, 2)])}


def _prose(request):
    return {"content": "The agent did what was asked."}


@pytest.fixture
def judge_stub():
    stub = StubLLM()
    yield stub
    stub.close()


def _run(project, stub, *args):
    path = project.path / "run.json"
    result = project.runpytest("-n", "2", "-p", "no:cacheprovider", "--vita-trials", "4", "--vita-report", str(path),
                               "--vita-judge-model", "m-judge", "--vita-base-url", stub.base_url,
                               "--vita-api-key-env", "VITA_NO_SUCH_VAR", "--vita-cache", "off", *args)
    return result, json.loads(path.read_text())


def test_the_report_holds_the_judge_figures_and_the_gate_reads_them(project, judge_stub):
    judge_stub.responder = _always_met  # a judge that passes everything
    result, report = _run(project, judge_stub, "--vita-fail-under", "judge.kappa=0.5")
    judge = report["judge"]
    # the even-odd agent orders the wrong noodles on odd trial seeds: the rules judge says unmet there
    assert judge["n"] == 2 * len(report["results"]) and judge["counts"]["unmet_met"] > 0
    assert judge["false_fail"] == 0.0 and judge["false_pass"] == 1.0 and judge["kappa"] == 0.0
    assert set(judge["by_kind"]) == {"phrase the product carries", "payment or status"}
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*judge vs machine checks: agreement *, kappa 0.000, false pass 1.000, false fail "
                                 "0.000 over * rubrics*", "*judge.kappa = 0.000 over * rubrics < 0.500*"])
    passing, _ = _run(project, judge_stub, "--vita-fail-under", "judge.agreement=0.5")
    assert passing.ret == 0


def test_a_gate_on_the_judge_without_an_llm_judge_misses(project):
    result = project.runpytest("-p", "no:cacheprovider", "--vita-trials", "1", "--vita-fail-under", "judge.kappa=0.5")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*judge.kappa=0.5: no machine-checked rubric of this run was judged by an LLM judge*"])


def test_unreadable_judge_replies_are_unscored_not_failed_and_zero_under_the_official_switch(project, judge_stub):
    judge_stub.responder = _prose
    result, report = _run(project, judge_stub)
    assert {r["outcome"] for r in report["results"]} == {"skipped"}
    assert all(r["error"].startswith("unscored: the judge failed to return 2 verdict(s)") for r in report["results"])
    level = report["metrics"]["full_context"]["subtask"]
    assert level["n_units"] == 0 and level["n_unscored"] == len(report["results"]) and level["n_short"] == 0
    result.stdout.fnmatch_lines(["*memory*units*errors*unscored*",
                                 f"*judge failures: {2 * len(report['results'])} rubric(s)*"])
    official, zero = _run(project, judge_stub, "--vita-deviation", "judge-failures=zero")
    assert {r["outcome"] for r in zero["results"]} == {"failed"}
    assert zero["metrics"]["full_context"]["subtask"]["avg@4"] == 0.0
    assert zero["config"]["judge_failures"] == "zero"
