"""The rules judge on VitaBench 1.0 required orders: every record kind, judged on its own fields."""

from __future__ import annotations

import copy
import json

import pytest
from _official_shape import VB1_INSTORE, VB1_OTA, VB1_OTA_TRIPS
from _paths import VB1_DIR, VB1_SKIP_REASON

from pytest_vitabench.domains import build_environment
from pytest_vitabench.judges.base import JudgeCase
from pytest_vitabench.judges.rules import RulesJudge
from pytest_vitabench.suite.loader import load_suite
from pytest_vitabench.suite.required_orders import required_orders_of


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


# --- what the official tools can make: in-store and travel orders pooled at their entity ------------------

def _buy(product, quantity=1, shop="SH1001"):
    return ("create_instore_product_order", {"user_id": "U300001", "shop_id": shop, "product_id": product,
                                             "quantity": quantity})


def _two_products(p1=2, p2=1):
    """IS0001's hot-pot order asks for ``p1`` x SH1001_P1 and ``p2`` x SH1001_P2 (one order of two products,
    which create_instore_product_order cannot make in one call)."""
    def mutate(sub):
        order = sub.evaluation_criteria.expected_states[0].required_orders[0]
        order["products"] = [{"product_id": "SH1001_P1", "quantity": p1}, {"product_id": "SH1001_P2", "quantity": p2}]
    return mutate


@pytest.mark.parametrize("calls", [
    [_buy("SH1001_P1", 2), _buy("SH1001_P2")],
    [_buy("SH1001_P2"), _buy("SH1001_P1"), _buy("SH1001_P1")],  # quantities are summed per product
], ids=["one-order-per-product", "split-quantity"])
def test_a_multi_product_instore_order_is_met_by_single_product_orders_at_the_shop(calls):
    verdict, outcome = _case(VB1_INSTORE, 0, [*calls, _reserve()], mutate=_two_products())
    assert outcome[0].met is True and verdict.reward == 1.0, outcome[0].reason


@pytest.mark.parametrize("calls, fragment", [
    ([_buy("SH1001_P1", 1), _buy("SH1001_P2")], "quantity of SH1001_P1 (Hotpot set for four) is 1, expected 2"),
    ([_buy("SH1001_P1", 2)], "product SH1001_P2 (Seafood hotpot set for four) missing"),
    ([_buy("SH1001_P1", 2), _buy("SH1001_P2"), _buy("SH1001_P2")],
     "quantity of SH1001_P2 (Seafood hotpot set for four) is 2, expected 1 over 3 orders"),
    ([_buy("SH9001_P1", 2, shop="SH9001")], "no instore record at SH1001 (Old Lane Hotpot) was created"),
], ids=["short-quantity", "missing-product", "extra-order", "wrong-store"])
def test_a_multi_product_instore_order_fails_with_what_is_wrong(calls, fragment):
    verdict, outcome = _case(VB1_INSTORE, 0, [*calls, _reserve()], mutate=_two_products())
    assert outcome[0].met is False and verdict.reward == 0.0
    assert fragment in outcome[0].reason, outcome[0].reason


def test_a_product_no_record_lists_is_an_extra_the_record_forbids_unless_optional():
    calls = [*HOTPOT, _buy("SH1001_P2"), _reserve()]
    verdict, outcome = _case(VB1_INSTORE, 0, calls)
    assert verdict.reward == 0.0
    assert "also holds SH1001_P2 (Seafood hotpot set for four), which no required order at SH1001" in outcome[0].reason

    def optional(sub):
        sub.evaluation_criteria.expected_states[0].optional_orders = [
            {"order_type": "instore", "store_id": "SH1001", "products": [{"product_id": "SH1001_P2"}]}]
    assert _case(VB1_INSTORE, 0, calls, mutate=optional)[0].reward == 1.0

    def unreadable_optional(sub):
        sub.evaluation_criteria.expected_states[0].optional_orders = [{"order_type": "instore", "store_id": "SH1001"}]
    verdict, outcome = _case(VB1_INSTORE, 0, calls, mutate=unreadable_optional)
    assert verdict.reward == 0.0 and outcome[-1].met is None  # the extra is still an extra
    assert outcome[-1].reason == ("not judged: the optional order cannot be interpreted, so it allows nothing: "
                                  "the instore order lists no products")
    # an order at another shop is not this record's business
    assert _case(VB1_INSTORE, 0, [*HOTPOT, _buy("SH9001_P1", shop="SH9001"), _reserve()])[0].reward == 1.0


def test_two_required_orders_at_one_shop_share_its_orders():
    def twice(sub):
        orders = sub.evaluation_criteria.expected_states[0].required_orders
        orders.append({**orders[0], "order_id": "IS0001T02"})
    assert _case(VB1_INSTORE, 0, [_buy("SH1001_P1", 2), _reserve()], mutate=twice)[0].reward == 1.0
    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT, _reserve()], mutate=twice)
    assert verdict.reward == 0.0
    assert "is 1, expected 2 (the required lines there together)" in outcome[0].reason


def test_a_hotel_order_of_two_rooms_is_two_orders():
    def two_rooms(sub):
        for order in sub.evaluation_criteria.expected_states[0].required_orders:
            if order["order_type"] == "hotel":
                order["products"][0]["quantity"] = 2
    room = OTA_CALLS[1]
    verdict, outcome = _case(VB1_OTA, 0, [*OTA_CALLS, room], mutate=two_rooms)
    assert verdict.reward == 1.0, [v.reason for v in outcome if not v.met]
    verdict, outcome = _case(VB1_OTA, 0, OTA_CALLS, mutate=two_rooms)
    assert "quantity of H1_R1" in outcome[1].reason and "is 1, expected 2" in outcome[1].reason


# --- visits: the kind the shop takes -----------------------------------------------------------------------

def _visit_at_booking_only_shop(sub):
    sub.environment["shops"]["SH1001"].update(enable_reservation=False, enable_book=True, book_price=0)


def test_a_reservation_at_a_shop_that_only_takes_bookings_is_met_by_a_booking():
    book = ("instore_book", {"user_id": "U300001", "shop_id": "SH1001", "time": "2025-05-10 18:00:00",
                             "customer_count": 4})
    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT, book], mutate=_visit_at_booking_only_shop)
    assert outcome[1].met is True and verdict.reward == 1.0, outcome[1].reason

    def takes_both(sub):
        sub.environment["shops"]["SH1001"].update(enable_reservation=True, enable_book=True, book_price=0)
    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT, book], mutate=takes_both)
    assert outcome[1].met is False and "no reservation record was created" in outcome[1].reason


def test_a_booking_at_a_shop_that_only_takes_reservations_is_met_by_a_reservation():
    reserve = ("instore_reservation", {"user_id": "U300001", "shop_id": "SH3001", "time": "2025-05-09 20:00:00",
                                       "customer_count": 5})

    def reservations_only(sub):
        sub.environment["shops"]["SH3001"].update(enable_reservation=True, enable_book=False)
    assert _case(VB1_INSTORE, 2, [reserve], mutate=reservations_only)[0].reward == 1.0

    def takes_both(sub):
        sub.environment["shops"]["SH3001"].update(enable_reservation=True, enable_book=True)
    # where the shop does take bookings, a reservation is not the booking the record names
    verdict, outcome = _case(VB1_INSTORE, 2, [reserve], mutate=takes_both)
    assert verdict.reward == 0.0 and "no book record was created" in outcome[0].reason


@pytest.mark.parametrize("record, kind", [
    ({"reservation_id": "R1", "shop_id": "SH1001", "book_time": "2025-05-10 18:00:00", "customer_count": 4,
      "book_price": 20}, "reservation"),
    ({"book_id": "B1", "shop_id": "SH1001", "reservation_time": "2025-05-10 18:00:00", "customer_count": 4},
     "book"),
], ids=["reservation-with-book-time", "book-with-reservation-time"])
def test_mixed_visit_shapes_of_the_1_0_files_are_read_by_their_id(record, kind):
    def mixed(sub):
        sub.evaluation_criteria.expected_states[0].required_orders[1] = record
    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT, _reserve()], mutate=mixed)
    assert outcome[1].text == f"[outcome] a {kind} at SH1001 for 4 at 2025-05-10 18:00:00"
    # SH1001 takes reservations only, so the reservation made meets the booking too
    assert outcome[1].met is True, outcome[1].reason


def test_a_visit_time_written_without_zero_padding_matches():
    def unpadded(sub):
        sub.evaluation_criteria.expected_states[0].required_orders[1]["reservation_time"] = "2025-5-10 18:00:00"
    assert _case(VB1_INSTORE, 0, [*HOTPOT, _reserve()], mutate=unpadded)[0].reward == 1.0
    assert _case(VB1_INSTORE, 0, [*HOTPOT, _reserve(when="2025-05-10 08:00:00")], mutate=unpadded)[0].reward == 0.0


def test_a_visit_without_any_time_is_not_judged_with_the_reason():
    def timeless(sub):
        sub.evaluation_criteria.expected_states[0].required_orders[1].pop("reservation_time")
    verdict, outcome = _case(VB1_INSTORE, 0, [*HOTPOT, _reserve()], mutate=timeless)
    assert outcome[1].met is None
    assert "the reservation has no reservation_time (nor book_time)" in outcome[1].reason


# --- the hand-written travel trips (tests/data/official_shape/vb1_ota_trips.json) ---------------------------

TRIP = "U500001"
NIGHT_10 = ("create_hotel_order", {"hotel_id": "HT01", "room_id": "HT01_K0410", "user_id": TRIP})
NIGHT_11 = ("create_hotel_order", {"hotel_id": "HT01", "room_id": "HT01_K0411", "user_id": TRIP})


def _fly(flight="FL01", seat="FL01_Y", date="2025-04-10", quantity=3):
    return ("create_flight_order", {"flight_id": flight, "seat_id": seat, "user_id": TRIP, "date": date,
                                    "quantity": quantity})


def _tickets(ticket, quantity, date="2025-04-11"):
    return ("create_attraction_order", {"attraction_id": "AT01", "ticket_id": ticket, "user_id": TRIP,
                                        "date": date, "quantity": quantity})


@pytest.mark.parametrize("index, calls, met, fragment", [
    (0, [NIGHT_10, NIGHT_11], True, "hold it"),
    (0, [NIGHT_10], False, "product HT01_K0411 (Lakeside Garden Hotel King room) on 2025-04-11 missing"),
    (0, [NIGHT_10, NIGHT_11, ("create_hotel_order", {"hotel_id": "HT01", "room_id": "HT01_T0410", "user_id": TRIP})],
     False, "also holds HT01_T0410 (Lakeside Garden Hotel Twin room) on 2025-04-10"),
    (0, [("create_hotel_order", {"hotel_id": "HT02", "room_id": "HT02_K0410", "user_id": TRIP}),
         ("create_hotel_order", {"hotel_id": "HT02", "room_id": "HT02_K0411", "user_id": TRIP})],
     False, "no hotel record at HT01 (Lakeside Garden Hotel) was created"),
    (1, [_fly()], True, "hold it"),
    (1, [_fly(seat="FL01_J")], False, "product FL01_Y (3U8961 economy) on 2025-04-10 missing"),
    (1, [_fly("FL02", "FL02_Y", "2025-04-11")], False, "no flight record at FL01"),
    (1, [_fly(quantity=2)], False, "quantity of FL01_Y (3U8961 economy) is 2, expected 3"),
    (2, [("create_train_order", {"train_id": "TR01", "seat_id": "TR01_2", "user_id": TRIP, "date": "2025-04-12",
                                 "quantity": 2})], True, "hold it"),
    (2, [("create_train_order", {"train_id": "TR01", "seat_id": "TR01_1", "user_id": TRIP, "date": "2025-04-12",
                                 "quantity": 2})], False, "product TR01_2 (G1975 second class) on 2025-04-12 missing"),
    (3, [_tickets("AT01_AD", 2), _tickets("AT01_CH", 1)], True, "hold it"),
    (3, [_tickets("AT01_AD", 3)], False, "product AT01_CH on 2025-04-11 missing"),
    (3, [_tickets("AT01_AD12", 2, "2025-04-12"), _tickets("AT01_CH", 1)], False, "product AT01_AD on 2025-04-11 "
                                                                                 "missing"),
], ids=["hotel-two-nights", "hotel-one-night", "hotel-extra-room", "hotel-wrong-hotel", "flight", "flight-class",
        "flight-other-day", "flight-short", "train", "train-class", "attraction", "attraction-no-child",
        "attraction-wrong-day"])
def test_travel_trips_are_judged_by_what_the_travel_tools_can_make(index, calls, met, fragment):
    verdict, outcome = _case(VB1_OTA_TRIPS, index, calls)
    assert outcome[0].met is met and verdict.reward == float(met), outcome[0].reason
    assert fragment in outcome[0].reason, outcome[0].reason


def test_the_multi_record_trip_needs_every_record_including_the_cancellation():
    suite = load_suite(VB1_OTA_TRIPS)
    assert [u.task.subtasks[0].domain for u in suite.users] == ["ota"] * 5
    kinds = [order.kind for order in required_orders_of(suite.users[4].task.subtasks[0])]
    assert kinds == ["flight", "taxi", "hotel", "attraction", "train", "train"]
    everything = [_fly(quantity=2), ("create_taxi_order", {"taxi_id": "TX01", "product_id": "TX01_C",
                                                            "user_id": TRIP, "quantity": 1}),
                  NIGHT_10, NIGHT_10, _tickets("AT01_AD", 2),
                  ("cancel_train_order", {"order_id": "OT2005T0", "user_id": TRIP}),
                  ("create_train_order", {"train_id": "TR01", "seat_id": "TR01_2", "user_id": TRIP,
                                          "date": "2025-04-12", "quantity": 2})]
    assert _case(VB1_OTA_TRIPS, 4, everything)[0].reward == 1.0
    verdict, outcome = _case(VB1_OTA_TRIPS, 4, [c for c in everything if c[0] != "cancel_train_order"])
    assert verdict.reward == 0.0 and [v.met for v in outcome] == [True, True, True, True, False, True]
    assert "status is paid, expected cancelled" in outcome[4].reason
