"""The rules judge on VitaBench 1.0 required orders: every record kind, judged on its own fields."""

from __future__ import annotations

import copy
import json

import pytest
from _official_shape import VB1_INSTORE, VB1_OTA
from _paths import VB1_DIR, VB1_SKIP_REASON

from pytest_vitabench.domains import build_environment
from pytest_vitabench.judges.base import JudgeCase
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.suite.loader import load_suite


def _case(path, index, calls, *, mutate=None):
    """Judge the state after ``calls`` (tool name, arguments; ``"$last"`` is the last created record id)."""
    suite = load_suite(path)
    user = suite.users[index]
    sub = user.task.subtasks[0]
    if mutate:
        sub = sub.model_copy(deep=True)
        mutate(sub)
    env = build_environment(sub.domain, sub.environment, user_id=sub.environment["user_id"], time=user.times[0],
                            seed=0)
    last = ""
    for name, arguments in calls:
        arguments = {k: (last if v == "$last" else v) for k, v in arguments.items()}
        result = env.call(name, arguments)
        assert not result.error, result.content
        data = json.loads(result.content)
        last = data.get("order_id") or data.get("reservation_id") or data.get("book_id") or last
    verdict = RulesJudge().judge(JudgeCase(subtask=sub, messages=[], environment=env, termination="user_stop",
                                           time=user.times[0], seed=0))
    return verdict, [v for v in verdict.rubrics if v.kind == "outcome"]


HOTPOT = [("create_instore_product_order", {"user_id": "U300001", "shop_id": "SH1001", "product_id": "SH1001_P1",
                                            "quantity": 1}),
          ("pay_instore_order", {"order_id": "$last"})]


def _reserve(when="2025-05-10 18:00:00", count=4, shop="SH1001"):
    return ("instore_reservation", {"user_id": "U300001", "shop_id": shop, "time": when, "customer_count": count})


def test_instore_order_plus_reservation_is_met():
    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT, _reserve()])
    assert verdict.reward == 1.0 and len(outcome) == 2 and all(v.met for v in outcome)
    assert outcome[1].text == "[outcome] a reservation at SH1001 for 4 at 2025-05-10 18:00:00"


@pytest.mark.parametrize("reservation, fragment", [
    (_reserve(when="2025-05-10 19:00:00"), "time is '2025-05-10 19:00:00', expected '2025-05-10 18:00:00'"),
    (_reserve(count=3), "for 3 people, expected 4"),
    (_reserve(shop="SH9001"), "expected SH1001 (Old Lane Hotpot)"),
])
def test_a_wrong_reservation_fails_with_the_field_that_differs(reservation, fragment):
    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT, reservation])
    assert verdict.reward == 0.0
    assert outcome[0].met is True and outcome[1].met is False and fragment in outcome[1].reason


def test_a_reservation_is_never_read_as_a_delivery_order():
    # The bug this replaces: a 1.0 reservation became "a delivery order at None with products []".
    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT])
    assert "no reservation record was created" in outcome[1].reason
    assert not any("delivery" in v.text or "None" in v.text for v in outcome)


def test_instore_quantity_and_booking_count():
    wrong_quantity = [("create_instore_product_order", {"user_id": "U300001", "shop_id": "SH2001",
                                                        "product_id": "SH2001_P1", "quantity": 1})]
    verdict, outcome = _case(VB1_INSTORE, 1, wrong_quantity)
    assert verdict.reward == 0.0
    assert "quantity of SH2001_P1 (60-minute foot massage voucher) is 1, expected 2" in outcome[0].reason
    book = [("instore_book", {"user_id": "U300001", "shop_id": "SH3001", "time": "2025-05-09 20:00:00",
                              "customer_count": 5}), ("pay_instore_book", {"book_id": "$last"})]
    assert _case(VB1_INSTORE, 2, book)[0].reward == 1.0
    book[0][1]["customer_count"] = 2
    assert "for 2 people, expected 5" in _case(VB1_INSTORE, 2, book)[1][0].reason


def test_an_uninterpretable_required_order_is_not_judged_with_the_reason():
    def dine_in(sub):
        sub.evaluation_criteria.expected_states[0].required_orders[0]["order_type"] = "dine-in"

    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT, _reserve()], mutate=dine_in)
    assert outcome[0].met is None and "unknown order_type 'dine-in'" in outcome[0].reason
    assert outcome[1].met is True and verdict.reward == 1.0  # judged on what can be judged, never as another kind


OTA_CALLS = [
    ("create_flight_order", {"flight_id": "F1", "seat_id": "F1_Y", "user_id": "U400001", "date": "2025-04-05",
                             "quantity": 2}),
    ("create_hotel_order", {"hotel_id": "H1", "room_id": "H1_R1", "user_id": "U400001"}),
    ("create_attraction_order", {"attraction_id": "A1", "ticket_id": "A1_T", "user_id": "U400001",
                                 "date": "2025-04-06", "quantity": 2}),
    ("create_taxi_order", {"taxi_id": "X1", "product_id": "X1_C", "user_id": "U400001", "quantity": 1}),
    ("create_train_order", {"train_id": "T1", "seat_id": "T1_2", "user_id": "U400001", "date": "2025-04-07",
                            "quantity": 2}),
]


def test_every_travel_order_kind_is_judged():
    verdict, outcome = _case(VB1_OTA, 0, OTA_CALLS)
    assert [v.text.split()[2] for v in outcome] == ["flight", "hotel", "attraction", "taxi", "train"]
    assert verdict.reward == 1.0
    fewer = copy.deepcopy(OTA_CALLS)
    fewer[4][1]["quantity"] = 1
    verdict, outcome = _case(VB1_OTA, 0, fewer)
    assert verdict.reward == 0.0 and "quantity of T1_2 (G31 second class) is 1, expected 2" in outcome[4].reason


@pytest.mark.skipif(not VB1_DIR.is_dir(), reason=VB1_SKIP_REASON)
def test_a_store_keyed_differently_from_its_own_id_still_matches():
    # In task 20711002 the store keyed S10884602254755805_S86671 has store_id S15949154785780736_S01374.
    raw = {t["id"]: t for t in json.loads((VB1_DIR / "delivery_tasks_en.json").read_text(encoding="utf-8"))}
    store = raw["20711002"]["environment"]["stores"]["S10884602254755805_S86671"]
    assert store["store_id"] == "S15949154785780736_S01374"
    suite = load_suite(VB1_DIR / "delivery_tasks_en.json")
    index = next(i for i, u in enumerate(suite.users) if u.key == "20711002")
    order = suite.users[index].task.subtasks[0].evaluation_criteria.required_orders()[0]
    calls = [("create_delivery_order", {
        "user_id": "U000002", "store_id": "S10884602254755805_S86671",
        "product_ids": [p["product_id"] for p in order["products"]],
        "product_cnts": [p["quantity"] for p in order["products"]],
        "attributes": [p["attributes"] for p in order["products"]],
        "address": order["location"]["address"], "dispatch_time": suite.users[index].times[0]})]
    verdict, outcome = _case(VB1_DIR / "delivery_tasks_en.json", index, calls)
    assert outcome[0].met is True, outcome[0].reason
