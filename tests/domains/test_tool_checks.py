"""``--vita-deviation tool-checks``: each check we add over the official tools, on (default) and off (official).

The official tools (the tool strictness row of docs/official-profile.md) accept: delivery and in-store orders beyond
stock, in-store times and travel dates in the past, delivery products from another store, an attributes list of any
length, arguments of any JSON type, reservations whatever ``enable_reservation`` says, cancellations of delivered or
consumed orders, and a delivery order without products. What both profiles refuse (a dispatch time in the past, an
unknown store, a wrong user id, missing or unknown arguments) stays refused.
"""

from __future__ import annotations

import json

import pytest
from _suites import delivery_subtask

from pytest_vitabench.domains import build_environment
from pytest_vitabench.options.values import TOOL_CHECKS

NOW = "2025-06-01 11:00:00"
LOC = {"address": "No. 1 Test Road, Home", "longitude": 116.40, "latitude": 39.90}


def delivery(checks):
    env = delivery_subtask("s1")["environment"]
    env["stores"]["S2"]["products"][0]["quantity"] = 1
    return build_environment("delivery", env, user_id="U1", time=NOW, seed=1, checks=checks)


def instore(checks):
    shop = {"shop_id": "H1", "shop_name": "Tea House", "score": 4.2, "tags": [], "location": LOC,
            "enable_book": True, "book_price": 0, "enable_reservation": False,
            "products": [{"product_id": "Q1", "name": "Tea", "price": 30, "quantity": 1, "tags": []}]}
    env = {"time": NOW, "user_id": "U1", "location": [LOC], "shops": {"H1": shop}}
    return build_environment("instore", env, user_id="U1", time=NOW, seed=1, checks=checks)


def ota(checks):
    hotel = {"hotel_id": "H1", "hotel_name": "Lake Hotel", "score": 4.5, "star_rating": 4, "location": LOC,
             "tags": [], "products": [{"product_id": "R1", "price": 500, "quantity": 3, "date": "2025-05-20",
                                       "room_type": "Double"}]}
    env = {"time": NOW, "user_id": "U1", "location": [LOC], "hotels": {"H1": hotel}}
    return build_environment("ota", env, user_id="U1", time=NOW, seed=1, checks=checks)


def order(env, **changes):
    args = {"user_id": "U1", "store_id": "S2", "product_ids": ["P2"], "product_cnts": [1],
            "address": LOC["address"], "dispatch_time": NOW}
    args.update(changes)
    return env.call("create_delivery_order", args)


ALL = list(TOOL_CHECKS)


@pytest.mark.parametrize("check, call, refusal", [
    ("stock", lambda env: order(env, product_cnts=[2]), "Insufficient stock"),
    ("single_store", lambda env: order(env, product_ids=["P1"]), "not found in store"),
    ("attributes", lambda env: order(env, attributes=["large", "spicy"]), "one entry per product"),
    ("argument_types", lambda env: order(env, product_cnts=["1"]), "must be a positive integer"),
    ("empty_orders", lambda env: order(env, product_ids=[], product_cnts=[]), "must not be empty"),
])
def test_delivery_checks(check, call, refusal):
    refused = call(delivery(ALL))
    assert refused.error and refusal in refused.content
    without = [c for c in ALL if c != check]
    accepted = call(delivery(without))
    assert not accepted.error, accepted.content
    assert not call(delivery([])).error  # the official profile


def test_foreign_store_product_is_ordered_at_its_price_when_allowed():
    created = json.loads(order(delivery([]), product_ids=["P1"]).content)
    assert created["products"][0]["product_id"] == "P1" and created["total_price"] == 30


def test_without_the_stock_check_the_catalogue_is_untouched():
    env = delivery([])
    order(env, product_cnts=[5])
    assert env.db.stores["S2"].products[0].quantity == 1  # neither decremented nor overwritten (official bug)


def test_what_both_profiles_refuse():
    for checks in (ALL, []):
        env = delivery(checks)
        assert "in the past" in order(env, dispatch_time="2025-05-01 11:00:00").content
        assert "not found" in order(env, store_id="S9").content
        assert "User ID does not match" in order(env, user_id="U2").content
        assert "unknown argument" in env.call("create_delivery_order", {"bogus": 1, "user_id": "U1"}).content or \
            "missing required" in env.call("create_delivery_order", {"bogus": 1, "user_id": "U1"}).content


def test_instore_checks():
    strict, official = instore(ALL), instore([])
    past = "2025-05-01 12:00:00"
    assert "does not accept reservations" in strict.call(
        "instore_reservation", {"user_id": "U1", "shop_id": "H1", "time": "2025-06-02 12:00:00"}).content
    assert not official.call("instore_reservation", {"user_id": "U1", "shop_id": "H1",
                                                     "time": "2025-06-02 12:00:00"}).error
    assert "in the past" in strict.call("instore_book", {"user_id": "U1", "shop_id": "H1", "time": past}).content
    assert not official.call("instore_book", {"user_id": "U1", "shop_id": "H1", "time": past}).error
    args = {"user_id": "U1", "shop_id": "H1", "product_id": "Q1", "quantity": 3}
    assert "Insufficient stock" in strict.call("create_instore_product_order", args).content
    assert not official.call("create_instore_product_order", args).error
    assert official.db.shops["H1"].products[0].quantity == 1
    count = {"user_id": "U1", "shop_id": "H1", "time": "2025-06-02 12:00:00", "customer_count": "2"}
    assert "must be integer" in strict.call("instore_reservation", count).content
    assert json.loads(official.call("instore_reservation", count).content)["customer_count"] == 2


def test_ota_past_dates():
    args = {"hotel_id": "H1", "room_id": "R1", "user_id": "U1"}
    assert "in the past" in ota(ALL).call("create_hotel_order", args).content
    assert not ota([]).call("create_hotel_order", args).error
    assert not ota([c for c in ALL if c != "past_dates"]).call("create_hotel_order", args).error


def test_finished_orders():
    # The official tools cancel a delivered delivery order and a consumed in-store order, booking or
    # reservation, and change the note of a finished delivery order; cancelling twice is refused by both.
    def finished(checks):
        env = delivery(checks)
        made = json.loads(order(env).content)["order_id"]
        env.db.orders[made].status = "delivered"
        shop = instore(checks)
        shop.db.orders.update(env.db.orders)
        visit = json.loads(shop.call("instore_book", {"user_id": "U1", "shop_id": "H1",
                                                      "time": "2025-06-02 12:00:00"}).content)["book_id"]
        shop.db.books[visit].status = "consumed"
        bought = json.loads(shop.call("create_instore_product_order", {
            "user_id": "U1", "shop_id": "H1", "product_id": "Q1", "quantity": 1}).content)["order_id"]
        shop.db.orders[bought].status = "consumed"
        return env, made, shop, visit, bought

    env, made, shop, visit, bought = finished(ALL)
    assert "its status is 'delivered'" in env.call("cancel_delivery_order", {"order_id": made}).content
    assert "its status is 'delivered'" in env.call("modify_delivery_order", {"order_id": made, "note": "x"}).content
    assert "its status is 'consumed'" in shop.call("instore_cancel_book", {"book_id": visit}).content
    assert "its status is 'consumed'" in shop.call("instore_cancel_order", {"order_id": bought}).content
    env, made, shop, visit, bought = finished([c for c in ALL if c != "finished_orders"])
    assert not env.call("modify_delivery_order", {"order_id": made, "note": "x"}).error
    assert not env.call("cancel_delivery_order", {"order_id": made}).error
    assert "its status is 'cancelled'" in env.call("cancel_delivery_order", {"order_id": made}).content
    assert not shop.call("instore_cancel_book", {"book_id": visit}).error
    assert shop.db.books[visit].status == "cancelled"
    assert not shop.call("instore_cancel_order", {"order_id": bought}).error
    assert shop.call("instore_cancel_order", {"order_id": bought}).error


def test_an_environment_built_without_checks_has_every_check():
    from pytest_vitabench.domains.base import ALL_CHECKS

    assert list(ALL_CHECKS) == ALL
