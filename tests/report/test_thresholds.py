"""--vita-fail-under: parsing, clear errors, and violation messages."""

from __future__ import annotations

import pytest

from pytest_vitabench.options.fail_under import Threshold, parse_fail_under
from pytest_vitabench.report.thresholds import check_thresholds


def evaluate_thresholds(thresholds, metrics, results=None):
    return [o.message for o in check_thresholds(thresholds, metrics, results) if o.status == "missed"]


def test_parse_examples():
    assert parse_fail_under("avg@4=0.40,pass^4=0.20") == [
        Threshold(metric="avg", k=4, value=0.40), Threshold(metric="pass^", k=4, value=0.20)]
    assert parse_fail_under("user.pass@4=0.1") == [Threshold(metric="pass", k=4, value=0.1, level="user")]
    assert parse_fail_under("full_context:avg@4=0.5") == [
        Threshold(metric="avg", k=4, value=0.5, memory="full_context")]
    assert parse_fail_under(" rag : user.Pass^4 = 1 , ") == [
        Threshold(metric="pass^", k=4, value=1.0, level="user", memory="rag")]
    # A 'module:Class' backend keeps its own colon.
    (t,) = parse_fail_under("my.mem:Store:subtask.avg@2=0")
    assert (t.memory, t.level, t.key, t.value) == ("my.mem:Store", "subtask", "avg@2", 0.0)
    assert parse_fail_under("") == [] and parse_fail_under("  ") == []


def test_str_round_trips():
    for spec in ("avg@4=0.4", "full_context:user.pass^4=0.2", "pass@1=1"):
        (t,) = parse_fail_under(spec)
        assert parse_fail_under(str(t)) == [t]


@pytest.mark.parametrize(("spec", "message"), [
    ("avg@4", "no '='"),
    ("avg@4>0.4", "no '='"),
    ("mean@4=0.4", "unknown metric 'mean@4'"),
    ("avg@x=0.4", "unknown metric"),
    ("pass=0.4", "unknown metric"),
    ("pass@=0.4", "unknown metric"),
    ("avg@0=0.4", "at least 1"),
    ("team.avg@4=0.4", "unknown level 'team'"),
    (":avg@4=0.4", "empty memory backend"),
    ("avg@4=forty", "'forty' is not a number"),
    ("avg@4=", "is not a number"),
    ("avg@4=40", "outside [0, 1]"),
    ("avg@4=-0.1", "outside [0, 1]"),
    ("avg@4=nan", "outside [0, 1]"),
])
def test_parse_errors(spec, message):
    with pytest.raises(ValueError) as info:
        parse_fail_under(spec)
    assert message in str(info.value)
    assert spec.split("=")[0] in str(info.value)  # the message quotes the offending entry


def level(avg, pass_at, pass_hat, k=4, n_units=10):
    return {f"avg@{k}": avg, f"pass@{k}": pass_at, f"pass^{k}": pass_hat, "n_units": n_units}


METRICS = {
    "full_context": {"k": 4, "subtask": level(0.312, 0.5, 0.2), "user": level(0.3, 0.1, 0.0)},
    "rag": {"k": 4, "subtask": level(0.45, 0.6, 0.25), "user": level(0.4, 0.2, 0.0)},
}


def test_all_met():
    assert evaluate_thresholds(parse_fail_under("avg@4=0.3,pass^4=0.2,user.pass@4=0.1"), METRICS) == []


def test_violations_name_backend_level_and_values():
    msgs = evaluate_thresholds(parse_fail_under("avg@4=0.40"), METRICS)
    assert msgs == ["full_context subtask avg@4 = 0.312 < 0.400"]
    msgs = evaluate_thresholds(parse_fail_under("user.pass@4=0.15,rag:pass^4=0.3"), METRICS)
    assert msgs == ["full_context user pass@4 = 0.100 < 0.150", "rag subtask pass^4 = 0.250 < 0.300"]


def test_close_values_show_the_difference():
    metrics = {"m": {"k": 4, "subtask": level(0.3996, 0, 0), "user": level(0, 0, 0)}}
    (msg,) = evaluate_thresholds(parse_fail_under("avg@4=0.4"), metrics)
    assert msg == "m subtask avg@4 = 0.3996 < 0.400"
    # Float noise in a mean must not fail a run that scored exactly the threshold.
    metrics["m"]["subtask"]["avg@4"] = 0.1 + 0.2 - 0.3 + 0.4 - 1e-15
    assert evaluate_thresholds(parse_fail_under("avg@4=0.4"), metrics) == []


def test_unknown_backend_and_empty_runs_are_violations():
    (msg,) = evaluate_thresholds(parse_fail_under("agentic:avg@4=0.1"), METRICS)
    assert "'agentic' is not in this run" in msg and "full_context, rag" in msg
    (msg,) = evaluate_thresholds(parse_fail_under("avg@4=0.1"), {})
    assert "no results" in msg
    empty = {"rag": {"k": 4, "subtask": level(None, None, None, n_units=0), "user": level(None, None, None)}}
    (msg,) = evaluate_thresholds(parse_fail_under("avg@4=0.1"), empty)
    assert msg.startswith("rag subtask avg@4 has no units")


def test_k_letter_and_bare_avg_follow_the_run():
    assert parse_fail_under("pass^k=0.2,avg=0.3") == [
        Threshold(metric="pass^", k=None, value=0.2), Threshold(metric="avg", k=None, value=0.3)]
    assert [str(t) for t in parse_fail_under("pass^k=0.2,avg=0.3")] == ["pass^k=0.2", "avg@k=0.3"]
    assert evaluate_thresholds(parse_fail_under("pass^k=0.2,avg@k=0.3"), METRICS) == []
    assert evaluate_thresholds(parse_fail_under("rag:pass^K=0.3"), METRICS) == ["rag subtask pass^4 = 0.250 < 0.300"]


def test_avg_at_any_k_checks_the_runs_mean_reward():
    # Avg@k is a mean reward: an avg@4 gate applies unchanged to a one-trial smoke run.
    smoke = {"m": {"k": 1, "subtask": level(0.35, 0.35, 0.35, k=1), "user": level(0.3, 0.3, 0.3, k=1)}}
    assert evaluate_thresholds(parse_fail_under("avg@4=0.3"), smoke) == []
    (missed,) = evaluate_thresholds(parse_fail_under("avg@4=0.4"), smoke)
    # the message says the figure checked is the table's Avg@1, not an Avg@4
    assert missed == ("m subtask avg@1 = 0.350 < 0.400; checked as avg@1, the table's figure: avg@4 was written, "
                      "this run has k=1 (trials selected per unit; a mean reward does not depend on k)")
    assert evaluate_thresholds(parse_fail_under("avg=0.4"), smoke) == ["m subtask avg@1 = 0.350 < 0.400"]


def test_pass_at_a_k_above_the_runs_is_not_checked_and_does_not_fail():
    from pytest_vitabench.report.thresholds import check_thresholds

    smoke = {"m": {"k": 1, "subtask": level(0.0, 0.0, 0.0, k=1), "user": level(0.0, 0.0, 0.0, k=1)}}
    assert evaluate_thresholds(parse_fail_under("pass^4=0.9,pass@4=0.9"), smoke) == []
    (outcome, _) = check_thresholds(parse_fail_under("pass^4=0.9,pass@4=0.9"), smoke)
    assert outcome.status == "not_checked"
    assert outcome.message == ("threshold pass^4=0.9 not checked: pass^4 needs 4 trials per subtask, this run has k=1 "
                               "(trials selected per unit) (m)")


def test_with_computed_metrics():
    from pytest_vitabench.metrics import compute_metrics
    from pytest_vitabench.result import ItemResult

    res = [ItemResult(nodeid=f"x::U::s[m-t{t}]", user_id="U", subtask_id="s", domain="delivery", memory="m",
                      trial=t, reward=float(t == 0), outcome="passed" if t == 0 else "failed")
           for t in range(4)]
    metrics = compute_metrics(res, bootstrap=0)
    assert evaluate_thresholds(parse_fail_under("avg@4=0.25,pass@4=1,m:user.avg@4=0.25"), metrics) == []
    assert evaluate_thresholds(parse_fail_under("pass^4=0.01"), metrics) == [
        "m subtask pass^4 = 0.000 < 0.010"]


def test_pass_at_a_smaller_k_is_recomputed_from_the_results():
    from pytest_vitabench.metrics import compute_metrics
    from pytest_vitabench.result import ItemResult

    # one unit, 4 trials, 2 successes: pass^2 = C(2,2)/C(4,2) = 1/6, pass@2 = 1 - C(2,2)/C(4,2) = 5/6
    res = [ItemResult(nodeid=f"x::U::s[m-t{t}]", user_id="U", subtask_id="s", domain="delivery", memory="m",
                      trial=t, reward=float(t < 2), outcome="passed" if t < 2 else "failed") for t in range(4)]
    metrics = compute_metrics(res, bootstrap=0)
    assert evaluate_thresholds(parse_fail_under("pass^2=0.16,pass@2=0.83"), metrics, res) == []
    assert evaluate_thresholds(parse_fail_under("pass^2=0.17"), metrics, res) == ["m subtask pass^2 = 0.167 < 0.170"]
    # without the results a smaller K cannot be recomputed: reported, not failed
    assert evaluate_thresholds(parse_fail_under("pass^2=0.17"), metrics) == []
