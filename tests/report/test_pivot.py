"""The memory-backend pivot table and the per-user paired differences behind it."""

from __future__ import annotations

import pytest

from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.report.terminal import render_pivot, render_table
from pytest_vitabench.result import ItemResult


def item(user: str, subtask: str, trial: int, reward: float, memory: str, outcome: str | None = None) -> ItemResult:
    return ItemResult(nodeid=f"s::{user}::{subtask}[{memory}-t{trial}]", user_id=user, subtask_id=subtask,
                      domain="delivery", memory=memory, trial=trial, reward=reward,
                      outcome=outcome or ("passed" if reward == 1.0 else "failed"))


# Per-user Avg@2 under each backend (two subtasks x two trials per user):
#   user:         A     B     C
#   none        0.00  0.25  0.50
#   rag         0.50  0.50  0.75
#   groundtruth 1.00  1.00  1.00
REWARDS = {
    "none": {"A": [0, 0, 0, 0], "B": [1, 0, 0, 0], "C": [1, 1, 0, 0]},
    "rag": {"A": [1, 1, 0, 0], "B": [1, 0, 1, 0], "C": [1, 1, 1, 0]},
    "groundtruth": {"A": [1, 1, 1, 1], "B": [1, 1, 1, 1], "C": [1, 1, 1, 1]},
}


def results(drop: tuple[str, ...] = ()) -> list[ItemResult]:
    out = []
    for memory, users in REWARDS.items():
        if memory in drop:
            continue
        for user, rewards in users.items():
            for n, reward in enumerate(rewards):
                out.append(item(user, f"s{n // 2}", n % 2, float(reward), memory))
    return out


def test_paired_differences_against_none_and_groundtruth():
    metrics = compute_metrics(results(), bootstrap=500)
    rag = metrics["rag"]["paired"]
    assert set(rag) == {"vs_none", "vs_groundtruth"}
    assert rag["vs_none"]["mean"] == pytest.approx((0.5 + 0.25 + 0.25) / 3)
    assert rag["vs_groundtruth"]["mean"] == pytest.approx((-0.5 - 0.5 - 0.25) / 3)
    assert rag["vs_none"]["metric"] == "avg@2" and rag["vs_none"]["n_users"] == 3 and rag["vs_none"]["n_units"] == 6
    lo, hi = rag["vs_none"]["ci95"]
    assert 0.25 <= lo <= rag["vs_none"]["mean"] <= hi <= 0.5  # bootstrap over the three user differences
    assert set(metrics["none"]["paired"]) == {"vs_groundtruth"} and set(metrics["groundtruth"]["paired"]) == {"vs_none"}
    assert compute_metrics(results(drop=("none", "groundtruth")))["rag"]["paired"] == {}


def test_paired_difference_uses_common_users_and_subtasks_and_counts_errors():
    res = results() + [item("D", "s0", 0, 1.0, "rag"), item("D", "s0", 1, 1.0, "rag")]  # D ran under rag only
    res = [r for r in res if not (r.memory == "none" and r.user_id == "C" and r.subtask_id == "s1")]
    for r in res:
        if r.memory == "rag" and r.user_id == "A" and r.subtask_id == "s0" and r.trial == 0:
            r.outcome, r.error = "error", "timeout"  # an error is a failure, as in every metric
    diff = compute_metrics(res, bootstrap=0)["rag"]["paired"]["vs_none"]
    assert diff["n_users"] == 3 and diff["n_units"] == 5 and diff["ci95"] is None
    # A: (0.5 - 0) + (0 - 0) -> 0.25; B: 0.25; C (s0 only): 1.0 - 1.0 -> 0.0
    assert diff["mean"] == pytest.approx((0.25 + 0.25 + 0.0) / 3)


def test_pivot_rows_columns_and_alignment():
    metrics = compute_metrics(results(), bootstrap=200)
    lines = render_pivot(metrics)
    assert lines[0].startswith("Memory backends (subtask level, k=2; vs: paired per-user difference of Avg@2")
    assert lines[1].split() == ["memory", "Avg@2", "Pass@2", "Pass^2", "users", "vs", "none", "vs", "groundtruth"]
    assert [line.split()[0] for line in lines[2:]] == ["none", "rag", "groundtruth"]  # floor to ceiling
    rag = lines[3].split()
    assert rag[1:5] == ["0.583", "0.833", "0.333", "3"] and rag[5] == "+0.333" and rag[8] == "-0.417"
    assert lines[2].split()[5] == "-" and lines[4].split()[-1] == "-"
    assert len({len(line) for line in lines[1:]}) == 1
    table = render_table(metrics, results())
    assert table[table.index("") + 1] == lines[0]  # the pivot follows the detailed table


def test_pivot_without_references_and_with_one_backend():
    metrics = compute_metrics(results(drop=("none", "groundtruth")) + [
        item("A", "s0", 0, 1.0, "full_context"), item("A", "s0", 1, 0.0, "full_context")], bootstrap=0)
    lines = render_pivot(metrics)
    assert lines[0] == "Memory backends (subtask level, k=2)"
    assert lines[1].split() == ["memory", "Avg@2", "Pass@2", "Pass^2"]
    assert [line.split()[0] for line in lines[2:]] == ["rag", "full_context"]
    assert render_pivot(compute_metrics(results(drop=("none", "rag")))) == []
