"""The start gate and the spend cap (run/stopping.py), the scheduler's admission, and how not-run items count in
the metrics, the progress line and the exit status: plain Python, no pytest run."""

from __future__ import annotations

import asyncio
import threading

import pytest
from test_metrics import item

from pytest_vitabench.metrics import compute_metrics
from pytest_vitabench.report.outcome import gate_run, score_run
from pytest_vitabench.report.progress import Progress
from pytest_vitabench.run.engine.scheduler import EpisodeScheduler
from pytest_vitabench.run.stopping import WAIT, Budget, NotRun, StartGate, resumed_spend


def test_the_cap_counts_the_items_in_flight_at_the_estimate_then_at_the_mean_cost(tmp_path):
    budget = Budget(1.0, state_dir=tmp_path, writer="gw0", estimate_per_item=lambda: 0.3)
    gate = StartGate(budget=budget)
    assert [gate.admit() for _ in range(3)] == [None, None, None]  # 3 x 0.3 in flight <= 1.0
    # The fourth would pass the cap at the estimate: gw0 waits for one of its own items to end...
    assert gate.admit() == WAIT and gate.reason is None
    # ...while gw1, with nothing in flight, stops: the books are run-wide, and it never waits for gw0's items.
    other = StartGate(budget=Budget(1.0, state_dir=tmp_path, writer="gw1", estimate_per_item=lambda: 0.3))
    assert other.admit() == "budget" and other.reason == "budget"
    gate.finished(0.1)  # now the mean of the finished items decides: 0.1 spent + (2 + 1) x 0.1 in flight
    assert gate.admit() is None and budget.spent() == pytest.approx(0.1)
    gate.finished(None)  # an item that gave no result frees its place and costs nothing known
    assert other.admit() == "budget"  # once closed, closed for good
    for _ in range(2):
        gate.finished(0.4)  # 0.9 spent, mean 0.3: one more would pass 1.0, and nothing is in flight
    assert gate.admit() == "budget" and gate.reason == "budget"


def test_rules_come_before_the_cap_so_a_refused_item_is_never_booked(tmp_path):
    budget = Budget(1.0, state_dir=tmp_path, writer="main", estimate_per_item=lambda: 0.1)
    decided = threading.Event()
    gate = StartGate(budget=budget)
    gate.add_rule(lambda: "decided" if decided.is_set() else None)
    assert gate.admit() is None
    decided.set()
    assert gate.admit() == "decided"
    gate.finished(0.2)
    assert budget.spent() == pytest.approx(0.2)
    books = (tmp_path / "spend.json").read_text()
    assert '"in_flight": 0' in books


def test_a_resumed_runs_spend_counts_against_the_cap(tmp_path):
    records = [{"usage": {"agent": {"cost": 0.4}, "judge": {"cost": 0.1}}}, {"usage": {}}]
    assert resumed_spend(records) == (pytest.approx(0.5), 2)
    # 0.5 spent; an item is expected to cost the mean 0.25
    assert Budget(0.8, state_dir=tmp_path / "a", writer="main", resumed=resumed_spend(records)).admit() is None
    assert Budget(0.7, state_dir=tmp_path / "b", writer="main", resumed=resumed_spend(records)).admit() == "budget"


def test_the_scheduler_ends_a_key_it_was_not_let_start_with_the_gates_reason():
    keys = [f"k{i}" for i in range(6)]
    allowed = iter([None, None, "budget"])
    started: list[str] = []

    async def make(key: str) -> str:
        started.append(key)
        await asyncio.sleep(0.01)
        return key

    scheduler = EpisodeScheduler(concurrency=2, make=make, upcoming=lambda key: keys[keys.index(key):],
                                 admit=lambda: next(allowed, "budget"), not_started=NotRun)
    try:
        assert scheduler.result("k0") == "k0"
        assert scheduler.result("k1") == "k1"  # in flight when the gate closed: it finishes
        with pytest.raises(NotRun, match="not run: budget"):
            scheduler.result("k2")
    finally:
        scheduler.close()
    assert started == ["k0", "k1"]


def test_the_scheduler_holds_a_key_back_while_the_cap_waits_for_an_episode_in_flight():
    keys = ["k0", "k1", "k2"]
    answers = iter([None, "", None, "budget"])  # k1 waits until k0 ends, then starts; k2 is refused
    started: list[str] = []

    async def make(key: str) -> str:
        started.append(key)
        await asyncio.sleep(0.05)
        return key

    scheduler = EpisodeScheduler(concurrency=2, make=make, upcoming=lambda key: keys[keys.index(key):],
                                 admit=lambda: next(answers, "budget"), not_started=NotRun)
    try:
        assert [scheduler.result(key) for key in keys[:2]] == ["k0", "k1"]
        with pytest.raises(NotRun):
            scheduler.result("k2")
    finally:
        scheduler.close()
    assert started == ["k0", "k1"]


def test_not_run_trials_leave_their_unit_out_rather_than_score_it_zero():
    results = [item("A", "s1", 0, 1.0), item("A", "s1", 1, 1.0), item("A", "s2", 0, 1.0),
               item("B", "s1", 0, 0.0), item("B", "s1", 1, 1.0), item("B", "s2", 0, 1.0), item("B", "s2", 1, 1.0)]
    not_run = ["demo::A::s2[full_context-t1]"]
    interrupted = compute_metrics(results, k=2, bootstrap=0)["full_context"]
    stopped = compute_metrics(results, k=2, bootstrap=0, not_run=not_run)["full_context"]
    assert interrupted["subtask"]["n_short"] == 1 and interrupted["subtask"]["n_units"] == 4
    assert stopped["subtask"]["n_short"] == 0 and stopped["subtask"]["n_units"] == 3
    assert stopped["subtask"]["avg@2"] == pytest.approx((1.0 + 0.5 + 1.0) / 3)
    assert stopped["subtask"]["n_unscored"] == 0
    assert stopped["user"]["n_units"] == 1  # A's trial 1 lacks s2: A is left out of the user level
    # The official style pads every missing trial with 0.0, not-run ones included.
    official = compute_metrics(results, k=2, bootstrap=0, style="official", not_run=not_run)
    assert official == compute_metrics(results, k=2, bootstrap=0, style="official")
    assert compute_metrics(results, k=2, bootstrap=0, not_run=[]) == compute_metrics(results, k=2, bootstrap=0)


@pytest.mark.parametrize(("gated", "status", "expected"), [
    (False, 0, 7), (False, 1, 7), (True, 0, 7), (True, 1, 7), (False, 2, 2), (True, 2, 2)])
def test_a_run_stopped_by_its_budget_exits_7_unless_pytest_says_otherwise(gated, status, expected):
    from pytest_vitabench.options.fail_under import parse_fail_under

    results = [item("A", "s1", 0, 1.0)]
    outcome = score_run(results, trials=2, seed=0, thresholds=parse_fail_under("avg=0.9") if gated else None,
                        not_run={"demo::A::s1[full_context-t1]": "budget"})
    assert gate_run(outcome, status=status) == expected
    if expected == 7:
        assert outcome.verdict is not None and outcome.verdict.startswith("exit status 7 (stopped by its budget)")
    decided = score_run(results, trials=2, seed=0, not_run={"demo::A::s1[full_context-t1]": "decided"})
    assert gate_run(decided, status=0) == 0  # only the cap's stop is exit status 7


def test_the_progress_line_counts_not_run_items_apart():
    progress = Progress(1.0, clock=lambda: 5.0, started=0.0)
    progress.plan(4)
    progress.add({"outcome": "passed", "reward": 1.0})
    progress.add_not_run("budget")
    progress.add_not_run("budget")
    line = progress.line()
    assert line.startswith("vitabench: 1/4 items") and line.endswith("0 errors, 2 not run: budget")
    assert progress.eta_s() is not None
    progress.add_not_run("budget")
    assert progress.eta_s() is None  # nothing left to run
