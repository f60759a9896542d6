"""The instore domain: official tool names, stock handling, reservation/booking rules (bugs fixed)."""

from __future__ import annotations

import json

import pytest

from pytest_vitabench.domains import build_environment

NOW = "2025-06-21 11:20:00"
LATER = "2025-06-21 18:30:00"
OFFICIAL = {
    "instore_shop_search_recommend",
    "instore_product_search_recommend",
    "create_instore_product_order",
    "pay_instore_order",
    "instore_cancel_order",
    "instore_book",
    "pay_instore_book",
    "instore_cancel_book",
    "instore_reservation",
    "instore_modify_reservation",
    "instore_cancel_reservation",
    "get_instore_orders",
    "get_instore_reservations",
    "get_instore_books",
    "search_instore_book",
    "search_instore_reservation",
    "longitude_latitude_to_distance",
    "weather",
    "address_to_longitude_latitude",
    "get_date_holiday_info",
    "get_holiday_date",
    "get_user_all_orders",
    "get_nearby",
}
LOC = {"address": "Mixc World, Xi'an", "longitude": 108.9, "latitude": 34.2}


def environment():
    return {
        "time": NOW,
        "user_id": "U1",
        "location": [LOC],
        "shops": {
            "H1": {
                "shop_id": "H1",
                "shop_name": "Hotpot King",
                "score": 4.7,
                "tags": ["hotpot", "spicy"],
                "location": LOC,
                "enable_book": True,
                "book_price": 50,
                "enable_reservation": True,
                "products": [
                    {
                        "product_id": "Q1",
                        "name": "Hotpot set for two",
                        "price": 198,
                        "quantity": 3,
                        "tags": ["set meal"],
                    }
                ],
            },
            "H2": {
                "shop_id": "H2",
                "shop_name": "Quiet Tea House",
                "score": 4.2,
                "tags": ["tea"],
                "location": LOC,
                "enable_book": True,
                "book_price": 0,
                "enable_reservation": False,
                "products": [
                    {"product_id": "Q2", "name": "Green tea", "price": 30, "quantity": 10, "tags": []}
                ],
            },
            "H3": {
                "shop_id": "H3",
                "shop_name": "Barber",
                "enable_book": False,
                "enable_reservation": True,
                "products": [],
            },
        },
        "reservations": {
            "R0": {
                "reservation_id": "R0",
                "shop_id": "H1",
                "reservation_time": "2025-06-01 12:00:00",
                "update_time": "2025-06-01 10:00:00",
                "customer_id": "U1",
                "customer_count": 2,
                "status": "consumed",
            }
        },
    }


@pytest.fixture
def env():
    return build_environment("instore", environment(), user_id="U1", time=NOW, seed=3)


def ok(env, name, **arguments):
    result = env.call(name, arguments)
    assert not result.error, result.content
    try:
        return json.loads(result.content)
    except json.JSONDecodeError:
        return result.content


def err(env, name, **arguments):
    result = env.call(name, arguments)
    assert result.error, result.content
    return result.content


def stock(env, shop_id="H1"):
    return env.db.shops[shop_id].products[0].quantity


def test_tool_names_are_official(env):
    assert set(env.tools) == OFFICIAL and len(env.tools) == 23


def test_ordering_decrements_stock_and_refuses_when_insufficient(env):
    order = ok(env, "create_instore_product_order", user_id="U1", shop_id="H1", product_id="Q1", quantity=2)
    assert (
        order["total_price"] == 396 and order["status"] == "unpaid" and order["store_name"] == "Hotpot King"
    )
    assert stock(env) == 1  # decremented, not overwritten with the ordered quantity (official bug)
    assert "Insufficient stock" in err(
        env, "create_instore_product_order", user_id="U1", shop_id="H1", product_id="Q1", quantity=2
    )
    assert stock(env) == 1
    ok(env, "pay_instore_order", order_id=order["order_id"])
    err(env, "pay_instore_order", order_id=order["order_id"])
    ok(env, "instore_cancel_order", order_id=order["order_id"])
    assert stock(env) == 3
    assert [o["status"] for o in ok(env, "get_instore_orders", user_id="U1")] == ["cancelled"]
    err(
        env, "create_instore_product_order", user_id="U1", shop_id="H1", product_id="Q2"
    )  # other shop's product
    err(env, "create_instore_product_order", user_id="U1", shop_id="H1", product_id="Q1", quantity=0)
    assert "User ID does not match" in err(
        env, "create_instore_product_order", user_id="U2", shop_id="H1", product_id="Q1"
    )


def test_reservation_requires_enable_reservation(env):
    assert "does not accept reservations" in err(
        env, "instore_reservation", user_id="U1", shop_id="H2", time=LATER, customer_count=2
    )
    res = ok(env, "instore_reservation", user_id="U1", shop_id="H1", time=LATER, customer_count=4)
    assert res["status"] == "unconsumed" and res["customer_count"] == 4 and res["shop_name"] == "Hotpot King"
    rid = res["reservation_id"]
    err(env, "instore_reservation", user_id="U1", shop_id="H1", time="2025-06-20 12:00:00")  # past
    moved = ok(env, "instore_modify_reservation", reservation_id=rid, time="2025-06-22 12:00:00")
    assert moved["reservation_time"] == "2025-06-22 12:00:00" and moved["customer_count"] == 4
    assert (
        ok(env, "instore_modify_reservation", reservation_id=rid, time=LATER, customer_count=2)[
            "customer_count"
        ]
        == 2
    )
    err(env, "instore_modify_reservation", reservation_id="R0", time=LATER)  # consumed
    assert ok(env, "search_instore_reservation", user_id="U1", reservation_id=rid)["reservation_id"] == rid
    assert len(ok(env, "search_instore_reservation", user_id="U1")) == 2
    ok(env, "instore_cancel_reservation", reservation_id=rid)
    err(env, "instore_cancel_reservation", reservation_id=rid)
    records = {r["record_id"]: r for r in env.records()}
    assert records[rid]["record_type"] == "reservation" and records[rid]["new"] is True
    assert records[rid]["time"] == LATER and records[rid]["customer_count"] == 2
    assert records[rid]["status"] == "cancelled" and records["R0"]["new"] is False


def test_booking_requires_enable_book_and_price_sets_status(env):
    assert "does not accept bookings" in err(env, "instore_book", user_id="U1", shop_id="H3", time=LATER)
    paid_book = ok(env, "instore_book", user_id="U1", shop_id="H1", time=LATER, customer_count=2)
    assert paid_book["status"] == "unpaid" and paid_book["book_price"] == 50
    free_book = ok(env, "instore_book", user_id="U1", shop_id="H2", time=LATER)
    assert free_book["status"] == "paid"
    ok(env, "pay_instore_book", book_id=paid_book["book_id"])
    err(env, "pay_instore_book", book_id=free_book["book_id"])
    ok(env, "instore_cancel_book", book_id=free_book["book_id"])
    assert {b["book_id"] for b in ok(env, "get_instore_books", user_id="U1")} == {
        paid_book["book_id"],
        free_book["book_id"],
    }
    assert ok(env, "search_instore_book", user_id="U1", book_id=paid_book["book_id"])["status"] == "paid"
    err(env, "search_instore_book", user_id="U1", book_id="BKNOPE")
    books = [r for r in env.records() if r["record_type"] == "book"]
    assert {(r["entity_id"], r["status"], r["total_price"]) for r in books} == {
        ("H1", "paid", 50.0),
        ("H2", "cancelled", 0.0),
    }


def test_search(env):
    shops = ok(env, "instore_shop_search_recommend", keywords=["hotpot"])
    assert shops[0]["shop_id"] == "H1" and "products" not in shops[0]
    products = ok(env, "instore_product_search_recommend", keywords=["green tea"])
    assert products[0]["product_id"] == "Q2" and products[0]["shop_name"] == "Quiet Tea House"
    assert [r["reservation_id"] for r in ok(env, "get_instore_reservations", user_id="U1")] == ["R0"]
    assert ok(env, "get_instore_books", user_id="U1") == "User has no bookings"
