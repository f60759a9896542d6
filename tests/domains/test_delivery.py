"""The delivery domain: official tool names, order creation maths, refusals, state changes."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from _paths import VB1_DIR, VB1_SKIP_REASON

from pytest_vitabench.domains import build_environment
from pytest_vitabench.domains.delivery.models import shipping_minutes
from pytest_vitabench.domains.geo import haversine_m

NOW = "2025-06-21 11:20:00"
HOME = {"address": "No. 28 Fengning Road, Wuhua District, Kunming", "longitude": 102.70, "latitude": 25.05}
OFFICIAL = {
    "delivery_distance_to_time",
    "get_delivery_store_info",
    "get_delivery_product_info",
    "delivery_store_search_recommand",
    "delivery_product_search_recommand",
    "create_delivery_order",
    "pay_delivery_order",
    "get_delivery_order_status",
    "cancel_delivery_order",
    "modify_delivery_order",
    "search_delivery_orders",
    "get_delivery_order_detail",
    "longitude_latitude_to_distance",
    "weather",
    "address_to_longitude_latitude",
    "get_date_holiday_info",
    "get_holiday_date",
    "get_user_all_orders",
    "get_nearby",
}


def environment():
    return {
        "time": NOW,
        "user_id": "U1",
        "location": [HOME],
        "weather": [],
        "orders": {
            "OLD1": {
                "order_id": "OLD1",
                "order_type": "delivery",
                "user_id": "U1",
                "store_id": "S2",
                "location": HOME,
                "total_price": 12,
                "status": "delivered",
                "create_time": "2025-06-01",
                "update_time": "2025-06-01",
                "dispatch_time": "",
                "shipping_time": None,
                "delivery_time": "",
                "products": [{"product_id": "P3", "price": 12, "quantity": 1}],
            }
        },
        "stores": {
            "S1": {
                "store_id": "S1",
                "name": "Noodle House",
                "score": 4.6,
                "tags": ["noodles", "quick"],
                "location": {
                    "address": "No. 46 Yuanxi Road, Kunming",
                    "longitude": 102.72,
                    "latitude": 25.06,
                },
                "products": [
                    {
                        "product_id": "P1",
                        "name": "Beef noodles",
                        "price": 20.5,
                        "tags": ["spicy"],
                        "attributes": ["mild", "hot"],
                    },
                    {"product_id": "P2", "name": "Soy milk", "price": 4, "tags": [], "attributes": []},
                ],
            },
            "S2": {
                "store_id": "S2",
                "name": "Cake Studio",
                "score": 4.1,
                "tags": ["dessert"],
                "location": {"address": "Dianchi Road, Kunming", "longitude": 102.68, "latitude": 25.00},
                "products": [
                    {"product_id": "P3", "name": "Durian cake", "price": 12, "tags": [], "attributes": []}
                ],
            },
        },
    }


@pytest.fixture
def env():
    return build_environment("delivery", environment(), user_id="U1", time=NOW, seed=42)


def ok(env, name, **arguments):
    result = env.call(name, arguments)
    assert not result.error, result.content
    try:
        return json.loads(result.content)
    except json.JSONDecodeError:
        return result.content


def order_args(**overrides):
    args = {
        "user_id": "U1",
        "store_id": "S1",
        "product_ids": ["P1", "P2"],
        "product_cnts": [2, 1],
        "address": HOME["address"],
        "dispatch_time": NOW,
    }
    args.update(overrides)
    return args


def test_tool_names_are_official(env):
    assert set(env.tools) == OFFICIAL and len(env.tools) == 19
    props = {t["function"]["name"]: t["function"]["parameters"]["properties"] for t in env.tool_schemas()}
    assert {"product_ids", "product_cnts", "attributes", "note"} <= set(props["create_delivery_order"])
    assert props["get_delivery_product_info"]["product_id"]["description"]


def test_create_order_computes_times_and_total(env):
    order = ok(env, "create_delivery_order", **order_args(attributes=["hot", ""], note="no cilantro"))
    dist = haversine_m(HOME["longitude"], HOME["latitude"], 102.72, 25.06)
    minutes = round(25 + int(dist) * 0.006510)
    assert order["shipping_time"] == minutes == shipping_minutes(dist)
    expected = datetime.strptime(NOW, "%Y-%m-%d %H:%M:%S") + timedelta(minutes=minutes)
    assert order["delivery_time"] == expected.strftime("%Y-%m-%d %H:%M:%S")
    assert order["status"] == "unpaid" and order["total_price"] == 45.0
    assert order["store_name"] == "Noodle House" and order["location"]["address"] == HOME["address"]
    assert [(p["product_id"], p["name"], p["quantity"]) for p in order["products"]] == [
        ("P1", "Beef noodles", 2),
        ("P2", "Soy milk", 1),
    ]
    records = {r["record_id"]: r for r in env.records()}
    assert records["OLD1"]["new"] is False
    new = records[order["order_id"]]
    assert new["new"] is True and new["attributes"] == ["hot", ""] and new["note"] == "no cilantro"
    assert new["product_ids"] == ["P1", "P2"] and new["total_quantity"] == 3


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"user_id": "U2"}, "User ID does not match"),
        ({"store_id": "S9"}, "not found"),
        ({"product_ids": ["P3"], "product_cnts": [1]}, "not found in store"),
        ({"product_cnts": [1]}, "same length"),
        ({"product_cnts": [0, 1]}, "positive"),
        ({"dispatch_time": "2025-06-21 11:00:00"}, "in the past"),
        ({"dispatch_time": "tomorrow noon"}, "YYYY-MM-DD"),
        ({"address": "#@!"}, "address"),
        ({"attributes": ["hot"]}, "one entry per product"),
    ],
)
def test_create_order_refusals_are_counted_errors(env, overrides, message):
    result = env.call("create_delivery_order", order_args(**overrides))
    assert result.error and message in result.content
    assert env.tool_errors == 1
    assert all(not r["new"] for r in env.records())


def test_order_lifecycle(env):
    order_id = ok(env, "create_delivery_order", **order_args())["order_id"]
    assert ok(env, "get_delivery_order_status", order_id=order_id)["status"] == "unpaid"
    assert [o["order_id"] for o in ok(env, "search_delivery_orders", user_id="U1")] == [order_id]
    ok(env, "pay_delivery_order", order_id=order_id)
    assert env.call("pay_delivery_order", {"order_id": order_id}).error
    assert ok(env, "modify_delivery_order", order_id=order_id, note="ring twice")["note"] == "ring twice"
    assert ok(env, "get_delivery_order_detail", order_id=order_id)["status"] == "paid"
    assert "No delivery orders" in ok(env, "search_delivery_orders", user_id="U1")
    ok(env, "cancel_delivery_order", order_id=order_id)
    assert env.call("cancel_delivery_order", {"order_id": order_id}).error
    assert env.call("cancel_delivery_order", {"order_id": "OLD1"}).error  # delivered
    assert env.call("get_delivery_order_detail", {"order_id": "NOPE"}).error
    assert env.call("search_delivery_orders", {"user_id": "U9"}).error


def test_ids_are_deterministic_across_builds():
    ids = []
    for _ in range(2):
        env = build_environment("delivery", environment(), user_id="U1", time=NOW, seed=5)
        ids.append(ok(env, "create_delivery_order", **order_args())["order_id"])
    assert ids[0] == ids[1]


def test_search_and_info(env):
    stores = ok(env, "delivery_store_search_recommand", keywords=["dessert", "cake"])
    assert stores[0]["store_id"] == "S2" and "products" not in stores[0]
    products = ok(env, "delivery_product_search_recommand", keywords=["beef noodles"])
    assert products[0]["product_id"] == "P1" and products[0]["store_name"] == "Noodle House"
    info = ok(env, "get_delivery_store_info", store_id="S1")
    assert [p["product_id"] for p in info["products"]] == ["P1", "P2"]
    assert ok(env, "get_delivery_product_info", product_id="P1")["attributes"] == ["mild", "hot"]
    assert ok(env, "delivery_distance_to_time", distance=1000) == 32
    assert env.call("get_delivery_product_info", {"product_id": "P404"}).error
    assert env.call("delivery_store_search_recommand", {"keywords": "cake"}).error  # schema: array


def test_real_vb1_orders_can_be_created():
    path = VB1_DIR / "delivery_tasks_en.json"
    if not path.exists():
        pytest.skip(VB1_SKIP_REASON)
    for task in json.loads(path.read_text(encoding="utf-8"))[:20]:
        data = task["environment"]
        env = build_environment("delivery", data, user_id=data["user_id"], time=data["time"], seed=1)
        store = next(iter(env.db.stores.values()))
        product = store.products[0]
        order = ok(
            env,
            "create_delivery_order",
            user_id=data["user_id"],
            store_id=store.store_id,
            product_ids=[product.product_id],
            product_cnts=[1],
            address=data["location"][0]["address"],
            dispatch_time=data["time"],
        )
        assert order["status"] == "unpaid" and order["total_price"] == pytest.approx(product.price)
