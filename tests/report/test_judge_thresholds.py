"""``--vita-fail-under judge.kappa=...``: parsing, and checking against the judge figures of the results."""

from __future__ import annotations

import pytest

from pytest_vitabench.judges.base import RubricVerdict
from pytest_vitabench.options.fail_under import parse_fail_under
from pytest_vitabench.report.thresholds import check_thresholds
from pytest_vitabench.result import ItemResult


def _item(user: str, truth: list[bool], judged: list[bool | None], memory: str = "none") -> ItemResult:
    texts = [f"r{i}" for i in range(len(truth))]
    rubrics = [RubricVerdict(text=t, met=m, judge_failure=None if m is not None else "unreadable")
               for t, m in zip(texts, judged, strict=True)]
    rules = [{"text": t, "met": m, "reason": "", "kind": "address"} for t, m in zip(texts, truth, strict=True)]
    return ItemResult(nodeid=f"s::{user}::x[{memory}-t0]", user_id=user, subtask_id="x", domain="delivery",
                      memory=memory, trial=0, rubrics=rubrics, judge_details={"rules": rules})


def test_judge_figures_parse_beside_the_metrics():
    got = parse_fail_under("avg=0.4,judge.kappa=0.8,full_context:judge.agreement=0.9,judge.kappa=-0.2")
    assert [str(t) for t in got] == ["avg@k=0.4", "judge.kappa=0.8", "full_context:judge.agreement=0.9",
                                     "judge.kappa=-0.2"]
    assert got[1].level == "judge" and got[1].metric == "kappa"


@pytest.mark.parametrize("spec, message", [
    ("judge.precision=0.5", "unknown judge figure 'precision' (use judge.agreement or judge.kappa)"),
    ("judge.agreement=-0.1", "outside [0, 1]"),
    ("judge.kappa=1.5", "outside [-1, 1]"),
    ("judge.kappa=high", "'high' is not a number"),
])
def test_bad_judge_thresholds_are_refused(spec, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        parse_fail_under(spec)


def test_judge_thresholds_are_checked_against_the_pairs_and_scoped_by_backend():
    results = [_item("U1", [True, False], [True, False]), _item("U2", [True, False], [True, True]),
               _item("U3", [True, True], [True, None], memory="rag")]
    outcomes = check_thresholds(parse_fail_under("judge.agreement=0.7,rag:judge.agreement=1,none:judge.kappa=0.9"),
                                {}, results)
    assert [o.status for o in outcomes] == ["met", "met", "missed"]
    assert outcomes[0].message == "judge.agreement = 0.800 over 5 rubrics >= 0.700"
    assert outcomes[1].value == 1.0  # the unreadable verdict is no pair
    assert outcomes[2].message.startswith("judge.kappa (none) = 0.500 over 4 rubrics < 0.900")


def test_a_judge_threshold_without_pairs_misses_rather_than_passes():
    (outcome,) = check_thresholds(parse_fail_under("judge.kappa=0.1"), {}, [])
    assert outcome.status == "missed" and "no machine-checked rubric of this run" in outcome.message
    constant = [_item("U1", [True, True], [True, True])]
    (undefined,) = check_thresholds(parse_fail_under("judge.kappa=0.1"), {}, constant)
    assert undefined.status == "missed" and "undefined" in undefined.message
