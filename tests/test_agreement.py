"""The judge figures: kappa and the rates on hand-counted pairs, rubric kinds from checks, the bootstrap's edges."""

from __future__ import annotations

import pytest

from pytest_vitabench.judges.audited import KINDS, rubric_kind
from pytest_vitabench.metrics import bootstrap_intervals
from pytest_vitabench.report.agreement import Pair, figures, sliced_figures
from pytest_vitabench.suite.checks import RubricCheck


def _pairs(user: str, cells: tuple[int, int, int, int], kind: str = "address") -> list[Pair]:
    """``cells`` pairs of (both met, false fail, false pass, both unmet)."""
    shapes = [(True, True), (True, False), (False, True), (False, False)]
    return [Pair(user=("s", user), nodeid=f"{user}-{i}-{n}", text="r", kind=kind, domain="delivery", truth=t,
                 judged=j) for i, (t, j) in enumerate(shapes) for n in range(cells[i])]


def test_kappa_and_the_rates_match_the_hand_computation():
    block = figures(_pairs("U1", (40, 10, 5, 45)), bootstrap=0)
    # observed 0.85; chance (50 x 45 + 50 x 55) / 100^2 = 0.5
    assert block["agreement"] == pytest.approx(0.85) and block["kappa"] == pytest.approx(0.7)
    assert block["false_pass"] == pytest.approx(5 / 50) and block["false_fail"] == pytest.approx(10 / 50)
    assert block["counts"] == {"met_met": 40, "met_unmet": 10, "unmet_met": 5, "unmet_unmet": 45}
    assert figures(_pairs("U1", (10, 0, 0, 0)), bootstrap=0)["kappa"] is None  # one verdict on both sides
    assert figures([], bootstrap=10)["agreement"] is None


def test_slices_come_from_the_same_draws_and_intervals_hold_the_point():
    pairs = _pairs("U1", (20, 5, 5, 20)) + _pairs("U2", (30, 2, 8, 10), kind="time") + _pairs("U3", (5, 5, 5, 5))
    overall, sliced = sliced_figures(pairs, ("kind",), bootstrap=200, seed=1)
    assert overall == figures(pairs, bootstrap=200, seed=1)
    assert set(sliced["kind"]) == {"address", "time"} and sliced["kind"]["time"]["n_users"] == 1
    for block in (overall, *sliced["kind"].values()):
        lo, hi = block["ci95"]["agreement"]
        assert lo <= block["agreement"] <= hi and lo < hi  # the one-user slice still has its rubrics' spread


def test_bootstrap_intervals_edges():
    assert bootstrap_intervals([], lambda picked: [None, None]) == [None, None]
    assert bootstrap_intervals([1, 2], lambda picked: [sum(picked)], bootstrap=0) == [None]
    assert bootstrap_intervals([3], lambda picked: [float(sum(picked))], bootstrap=0) == [[3.0, 3.0]]
    lo, hi = bootstrap_intervals([0, 1, 2, 3], lambda picked: [sum(picked) / len(picked)], bootstrap=500)[0]
    assert 0 <= lo < 1.5 < hi <= 3


@pytest.mark.parametrize("text, check, kind", [
    ("The shop is rated at least 4.5", {"kind": "record", "record_type": "instore",
                                        "where": {"entity_id": {"in": ["S1"]}}}, "rating floor"),
    ("The restaurant is quiet", {"kind": "record", "record_type": "reservation",
                                 "where": {"entity_id": {"in": ["S1"]}}}, "merchant choice"),
    ("The coffee is served hot", {"kind": "record", "record_type": "delivery",
                                  "where": {"product_ids": {"subset_of": ["P1"]}}}, "phrase the product carries"),
    ("It costs at most 50", {"kind": "record", "record_type": "delivery", "where": {"total_price": {"lte": 50}}},
     "price cap"),
    ("Delivered home", {"kind": "record", "record_type": "delivery", "where": {"address": {"contains": "Room"}}},
     "address"),
    ("For 5 people", {"kind": "record", "record_type": "reservation", "where": {"customer_count": {"eq": 5}}},
     "quantity"),
    ("On 2025-04-19", {"kind": "record", "record_type": "hotel", "where": {"dates": {"includes_all": ["x"]}}},
     "time"),
    ("Paid", {"kind": "record", "record_type": "delivery", "where": {"status": {"eq": "paid"}}}, "payment or status"),
    ("Asks when", {"kind": "asked", "pattern": "when"}, "proactive question"),
    ("Says sorry", {"kind": "said", "pattern": "sorry"}, "statement"),
    ("Orders nothing", {"kind": "no_record"}, "no order"),
    ("Searches", {"kind": "tool_called", "name": "search"}, "tool call"),
    ("Any delivery", {"kind": "record", "record_type": "delivery"}, "other record field"),
])
def test_rubric_kinds_follow_the_check(text, check, kind):
    parsed = RubricCheck.model_validate({"rubric": text, "check": check})
    assert rubric_kind(parsed.check, text) == kind and kind in KINDS
