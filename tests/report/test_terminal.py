"""The terminal table: rows in the promised order, values with intervals, run facts, no colour codes."""

from __future__ import annotations

from pytest_vitabench.judges.base import RubricVerdict
from pytest_vitabench.messages import Usage
from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.report.terminal import render_table
from pytest_vitabench.result import ItemResult


def item(user: str, subtask: str, trial: int, reward: float, memory: str = "full_context",
         outcome: str | None = None, **extra) -> ItemResult:
    if outcome is None:
        outcome = "passed" if reward == 1.0 else "failed"
    domain, skills = {"s1": ("delivery", ["personalize"]), "s2": ("ota", ["proactive"])}[subtask]
    return ItemResult(nodeid=f"demo::{user}::{subtask}[{memory}-t{trial}]", user_id=user, subtask_id=subtask,
                      domain=domain, skills=skills, memory=memory, trial=trial, reward=reward,
                      outcome=outcome, **extra)


def results() -> list[ItemResult]:
    out = []
    for memory in ("none", "full_context"):
        for user in ("A", "B"):
            for trial in (0, 1):
                out.append(item(user, "s1", trial, 1.0, memory))
                out.append(item(user, "s2", trial, float(user == "A" and memory == "full_context"), memory))
    return out


def test_rows_in_order_with_intervals():
    res = results()
    lines = render_table(compute_metrics(res, bootstrap=100), res)
    assert "k=2" in lines[0]
    header = lines[1]
    for name in ("Avg@2", "Pass@2", "Pass^2", "units", "errors"):
        assert name in header
    labels = [line.split()[:2] for line in lines[2:12]]
    assert labels == [
        ["full_context", "subtask"], ["none", "subtask"],
        ["full_context", "user"], ["none", "user"],
        ["full_context", "domain=delivery"], ["full_context", "domain=ota"],
        ["none", "domain=delivery"], ["none", "domain=ota"],
        ["full_context", "skill=personalize"], ["full_context", "skill=proactive"],
    ]
    # full_context subtask: units (1,1,1) x2, A-s2 (1,1,1), B-s2 (0,0,0) -> 0.750 with a real interval.
    assert lines[2].split()[2:4] == ["0.750", "[0.500,"]
    assert lines[2].split()[-2:] == ["4", "0"]
    # Columns line up: numbers are right-aligned, so every table line has the same length.
    table = lines[1:14]
    assert len({len(line) for line in table}) == 1


def test_run_facts_and_no_colour():
    res = results()
    res.append(item("C", "s1", 0, 0.0, outcome="error", error="timeout"))
    res.append(item("C", "s2", 0, 0.0, outcome="skipped",
                    rubrics=[RubricVerdict(text="r1", met=None), RubricVerdict(text="r2", met=None)]))
    res.append(item("C", "s1", 1, 0.0, rubrics=[RubricVerdict(text="r3", met=False),
                                                 RubricVerdict(text="r4", met=None)]))
    lines = render_table(compute_metrics(res, bootstrap=50), res)
    assert "items: 10 passed, 7 failed, 1 error, 1 skipped" in lines
    assert "rubrics not judged: 3 of 4 (in 2 items)" in lines
    assert not any(line.startswith("usage:") for line in lines)  # all usage is zero
    assert not any("\x1b" in line for line in lines)


def test_usage_per_role():
    res = results()
    res[0].usage = {"agent": Usage(prompt_tokens=1000, completion_tokens=200, cost=0.01, requests=2),
                    "judge": Usage(prompt_tokens=50, completion_tokens=5, cost=0.002, requests=1)}
    res[1].usage = {"agent": Usage(prompt_tokens=500, completion_tokens=100, cost=0.005, requests=1),
                    "user": Usage()}
    lines = render_table(compute_metrics(res, bootstrap=0), res)
    usage = [line for line in lines if line.startswith("usage:")]
    assert len(usage) == 1
    line = usage[0]
    assert "agent 1,500 in + 300 out tokens, $0.0150" in line
    assert "judge 50 in + 5 out tokens, $0.0020" in line
    assert "user " not in line  # a role with nothing to report stays out
    assert line.index("agent") < line.index("judge")
    assert line.endswith("(total $0.0170)")


def test_no_results():
    assert render_table({}, []) == ["VitaBench metrics: no results",
                                    "items: 0 passed, 0 failed, 0 error, 0 skipped",
                                    "rubrics not judged: 0 of 0"]


def test_empty_level_shows_dash():
    res = [item("A", "s1", 0, 0.0, memory="rag", outcome="skipped")]
    lines = render_table(compute_metrics(res), res)
    row = next(line for line in lines if line.startswith("rag") and " subtask " in line)
    assert row.split()[2:5] == ["-", "-", "-"]
