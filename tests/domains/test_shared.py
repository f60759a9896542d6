"""Shared domain infrastructure: views, ids, geocoding, holidays, shared tools, the registry."""

from __future__ import annotations

import copy
import json

import pydantic
import pytest

from pytest_vitabench.domains import (
    DOMAINS,
    build_environment,
    split_domains,
    tool_names,
    validate_environment,
)
from pytest_vitabench.domains.entities import Entity, Order
from pytest_vitabench.domains.fuzzy import fuzzy_rank
from pytest_vitabench.domains.geo import haversine_m
from pytest_vitabench.domains.public_holidays import holiday_dates
from pytest_vitabench.domains.records import order_record
from pytest_vitabench.domains.shared_tools import SharedTools
from pytest_vitabench.suite.checks import RECORD_FIELDS

NOW = "2025-06-21 11:20:00"
HOME = {"address": "No. 28 Fengning Road, Wuhua District, Kunming", "longitude": 102.70, "latitude": 25.05}


def delivery_env(**extra):
    env = {
        "time": NOW,
        "user_id": "U1",
        "weather": [
            {
                "city": "Kunming City",
                "category": "rainy",
                "datetime": "2025-06-21",
                "temperature": [17, 25],
                "humidity": 84,
            },
            {
                "city": "Kunming City",
                "category": "sunny",
                "datetime": "2025-06-22",
                "temperature": [18, 27],
                "humidity": 60,
            },
            {
                "city": "Dalian City",
                "category": "cloudy",
                "datetime": "2025-06-21",
                "temperature": [20, 24],
                "humidity": 70,
            },
        ],
        "location": [HOME],
        "orders": {},
        "stores": {
            "S1": {
                "store_id": "S1",
                "name": "Noodle House",
                "score": 4.6,
                "tags": ["noodles"],
                "location": {
                    "address": "No. 46 Yuanxi Road, Wuhua District, Kunming",
                    "longitude": 102.71,
                    "latitude": 25.05,
                },
                "products": [
                    {"product_id": "P1", "name": "Beef noodles", "price": 20, "tags": [], "attributes": []}
                ],
            },
        },
    }
    env.update(extra)
    return env


def call(env, name, **arguments):
    result = env.call(name, arguments)
    return result, (json.loads(result.content) if result.content[:1] in "[{0123456789" else result.content)


def test_haversine_matches_known_distance():
    # One degree of latitude is about 111.19 km with R = 6371 km.
    assert haversine_m(0, 0, 0, 1) == pytest.approx(111195, abs=1)
    assert haversine_m(102.7, 25.0, 102.7, 25.0) == 0


def test_entity_view_never_emits_extras_or_markers():
    class Thing(Entity):
        name: str
        seat_type: str = ""
        product_type: str = ""

    thing = Thing(
        name="x",
        seat_type="economy",
        product_type="target",
        store_type="distraction",
        distraction_reason="why",
        category="c",
    )
    assert thing.view() == {"name": "x", "seat_type": "economy"}
    # A declared *_type field with a non-marker value stays visible.
    assert Thing(name="y", product_type="set meal").view()["product_type"] == "set meal"


def test_fuzzy_rank_is_ranked_and_ties_break_by_id():
    items = [("b", "spicy hotpot", "B"), ("a", "spicy hotpot", "A"), ("c", "ice cream", "C")]
    assert fuzzy_rank(["hotpot"], items) == ["A", "B", "C"]
    assert fuzzy_rank(["ice", "cream"], items)[0] == "C"
    assert fuzzy_rank(["x"], items, top_k=2) == ["A", "B"]


def test_new_ids_are_deterministic_per_seed():
    data = delivery_env()
    ids = [
        build_environment("delivery", data, user_id="U1", time=NOW, seed=s).new_id("OT") for s in (7, 7, 8)
    ]
    assert ids[0] == ids[1] != ids[2]
    assert ids[0].startswith("OT") and len(ids[0]) == 12


def test_weather_matches_city_fuzzily_and_filters_dates():
    env = build_environment("delivery", delivery_env(), user_id="U1", time=NOW, seed=0)
    _, rows = call(env, "weather", address="Kunming", date_start="2025-06-21", date_end="2025-06-21")
    assert [r["category"] for r in rows] == ["rainy"]
    _, rows = call(
        env, "weather", address="Wuhua District, Kunming City", date_start="2025-06-21", date_end="2025-06-22"
    )
    assert len(rows) == 2
    result, text = call(env, "weather", address="Reykjavik", date_start="2025-06-21", date_end="2025-06-21")
    assert "No weather information" in text and not result.error
    assert env.call("weather", {"address": "Kunming", "date_start": "21/06/2025", "date_end": "x"}).error


def test_geocoding_searches_only_this_environment():
    env_a = build_environment("delivery", delivery_env(), user_id="U1", time=NOW, seed=0)
    other = {"address": "5th Floor, Building 3, Dalian Software Park", "longitude": 121.5, "latitude": 38.9}
    env_b = build_environment("delivery", delivery_env(location=[other]), user_id="U1", time=NOW, seed=0)
    _, coords = call(env_b, "address_to_longitude_latitude", address="Dalian Software Park Building 3")
    assert coords == [121.5, 38.9]
    # Environment A never saw the Dalian address (no process-global registry).
    _, coords_a = call(
        env_a, "address_to_longitude_latitude", address="5th Floor, Building 3, Dalian Software Park"
    )
    assert coords_a != [121.5, 38.9]
    _, exact = call(env_a, "address_to_longitude_latitude", address=HOME["address"])
    assert exact == [HOME["longitude"], HOME["latitude"]]


def test_holidays():
    assert holiday_dates(2026, "Spring Festival")[0] == "2026-02-15"
    assert holiday_dates(2025, "春节") == holiday_dates(2025, "Spring Festival")
    assert len(holiday_dates(2024, "National Day")) == 7
    assert holiday_dates(2025, "Christmas") is None
    env = build_environment("delivery", delivery_env(), user_id="U1", time=NOW, seed=0)
    _, text = call(env, "get_date_holiday_info", date="2025-10-03")
    assert "National Day" in text
    _, text = call(env, "get_date_holiday_info", date="2025-06-21")
    assert "not a holiday" in text
    zh = build_environment("delivery", delivery_env(), user_id="U1", time=NOW, seed=0, language="zh")
    assert "端午节" in zh.call("get_date_holiday_info", {"date": "2025-05-31"}).content
    # Any year the holidays package covers, not only the years a hand-made table listed.
    _, later = call(env, "get_holiday_date", year="2030", holiday_name="Labour Day")
    assert later["dates"][0] == "2030-05-01"


def test_get_nearby_and_all_orders():
    env = build_environment("delivery", delivery_env(), user_id="U1", time=NOW, seed=0)
    _, near = call(env, "get_nearby", longitude=102.71, latitude=25.05, range=500)
    assert [r["store_id"] for r in near] == ["S1"] and "products" not in near[0]
    _, far = call(env, "get_nearby", longitude=0.0, latitude=0.0, range=500)
    assert "Nothing found" in far
    _, text = call(env, "get_user_all_orders")
    assert text == "User currently has no order information"


def test_order_record_fields():
    order = Order(
        order_id="O1",
        order_type="delivery",
        user_id="U1",
        store_id="S1",
        location=HOME,
        total_price=40,
        status="paid",
        products=[{"product_id": "P1", "price": 20, "quantity": 2, "attributes": ["hot", "large"]}],
    )
    record = order_record(order, new=False)
    assert set(record) == set(RECORD_FIELDS) | {"new"}
    assert record["record_type"] == "delivery" and record["entity_id"] == "S1"
    assert record["quantities"] == [2] and record["total_quantity"] == 2
    assert record["attributes"] == ["hot, large"] and record["address"] == HOME["address"]


def test_registry_domains_and_tool_union():
    assert DOMAINS == ("delivery", "instore", "ota")
    assert split_domains(" Delivery, instore,delivery") == ["delivery", "instore"]
    with pytest.raises(ValueError):
        split_domains("flights")
    both = tool_names("delivery,instore")
    assert len(both) == len(set(both)) == 19 + 16
    assert set(SharedTools.tool_names()) <= set(both)


def test_combined_environment_shares_orders():
    data = delivery_env(
        shops={
            "H1": {
                "shop_name": "Tea Room",
                "enable_reservation": True,
                "products": [{"product_id": "T1", "name": "Tea", "price": 5, "quantity": 3}],
            }
        }
    )
    env = build_environment("delivery,instore", data, user_id="U1", time=NOW, seed=0)
    assert (
        call(env, "create_instore_product_order", user_id="U1", shop_id="H1", product_id="T1")[0].error
        is False
    )
    assert (
        call(
            env,
            "create_delivery_order",
            user_id="U1",
            store_id="S1",
            product_ids=["P1"],
            product_cnts=[1],
            address=HOME["address"],
            dispatch_time=NOW,
        )[0].error
        is False
    )
    _, orders = call(env, "get_user_all_orders")
    assert sorted(o["order_type"] for o in orders) == ["delivery", "instore"]


def test_build_deep_copies_and_overrides_time():
    data = delivery_env()
    before = copy.deepcopy(data)
    env = build_environment("delivery", data, user_id="U1", time="2025-06-22 08:00:00", seed=0)
    assert env.time == "2025-06-22 08:00:00"
    # Dispatching at the dict's own (earlier) time is now in the past.
    assert env.call(
        "create_delivery_order",
        {
            "user_id": "U1",
            "store_id": "S1",
            "product_ids": ["P1"],
            "product_cnts": [1],
            "address": HOME["address"],
            "dispatch_time": NOW,
        },
    ).error
    result = env.call(
        "create_delivery_order",
        {
            "user_id": "U1",
            "store_id": "S1",
            "product_ids": ["P1"],
            "product_cnts": [1],
            "address": HOME["address"],
            "dispatch_time": "2025-06-22 08:00:00",
        },
    )
    assert not result.error
    assert data == before


def test_validate_environment_reports_relative_locations():
    bad = delivery_env()
    bad["stores"]["S1"]["products"][0]["price"] = "free"
    with pytest.raises(pydantic.ValidationError) as info:
        validate_environment("delivery", bad)
    assert info.value.errors()[0]["loc"][:4] == ("stores", "S1", "products", 0)
    validate_environment("delivery", delivery_env(user_historical_behaviors={"x": 1}))


@pytest.mark.parametrize("domain", ["delivery", "instore"])
def test_every_schema_property_is_described(domain):
    env = build_environment(domain, {}, user_id="U1", time=NOW, seed=0)
    for schema in env.tool_schemas():
        fn = schema["function"]
        assert fn["description"], fn["name"]
        for name, prop in fn["parameters"]["properties"].items():
            assert prop.get("description"), f"{fn['name']}.{name}"
        assert set(fn["parameters"]["required"]) <= set(fn["parameters"]["properties"])


def test_blank_time_is_refused_at_build():
    with pytest.raises(ValueError, match="environment time"):
        build_environment("delivery", delivery_env(time=""), user_id="U1", time="", seed=0)
    # A blank override keeps the environment's own time.
    assert build_environment("delivery", delivery_env(), user_id="U1", time="", seed=0).time == NOW


def test_combined_with_ota_offers_the_union():
    names = tool_names("delivery,ota")
    assert len(names) == len(set(names)) == 19 + 37
    assert {"create_delivery_order", "create_hotel_order", "get_nearby"} <= set(names)
    env = build_environment("delivery,ota", delivery_env(), user_id="U1", time=NOW, seed=0)
    assert "hotel" in env.order_views and "delivery" not in env.order_views
