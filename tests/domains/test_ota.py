"""The travel (ota) domain: every tool's happy path and refusals, the fixed official bugs, determinism and
the guarantee that hidden answer markers never reach the agent."""

from __future__ import annotations

import copy
import json
from typing import Any

import pydantic
import pytest

from pytest_vitabench.domains import build_environment, validate_environment
from pytest_vitabench.domains.environment import DomainEnvironment

NOW = "2025-04-01 09:00:00"
USER = "U000001"

OTA_TOOLS = {
    "get_ota_hotel_info",
    "get_ota_attraction_info",
    "get_ota_flight_info",
    "get_ota_train_info",
    "get_taxi_info",
    "hotel_search_recommand",
    "attractions_search_recommend",
    "flight_search_recommend",
    "train_ticket_search",
    "taxi_search",
    "create_hotel_order",
    "create_attraction_order",
    "create_flight_order",
    "create_train_order",
    "create_taxi_order",
    "pay_hotel_order",
    "pay_attraction_order",
    "pay_flight_order",
    "pay_train_order",
    "pay_taxi_order",
    "search_hotel_order",
    "search_attraction_order",
    "search_flight_order",
    "search_train_order",
    "search_taxi_order",
    "get_hotel_order_detail",
    "get_attraction_order_detail",
    "get_flight_order_detail",
    "get_train_order_detail",
    "get_taxi_order_detail",
    "modify_train_order",
    "modify_flight_order",
    "cancel_hotel_order",
    "cancel_attraction_order",
    "cancel_flight_order",
    "cancel_train_order",
    "cancel_taxi_order",
}

#: Strings that only occur in hidden fields of the fixture; none may appear in any tool output.
HIDDEN_KEYS = (
    "hotel_type",
    "flight_type",
    "train_type",
    "attraction_type",
    "product_type",
    "distraction_reason",
    "category",
    "target_product_ids",
    "store_type",
)
HIDDEN_VALUES = ("target", "distraction", "irrelevant", "SECRET-REASON", "SECRET-CATEGORY")


def loc(address: str, lon: float, lat: float) -> dict[str, Any]:
    return {"address": address, "longitude": lon, "latitude": lat}


def environment() -> dict[str, Any]:
    return {
        "time": "2020-01-01 00:00:00",  # overridden by build(time=...)
        "user_id": USER,
        "unknown_top_level_key": {"ignored": True},
        "weather": [
            {
                "city": "Hangzhou",
                "category": "Sunny",
                "datetime": "2025-04-03",
                "temperature": [12, 22],
                "humidity": 60,
            }
        ],
        "location": [loc("1 Home Road, Hangzhou", 120.10, 30.20)],
        "orders": {
            "OOOLD0000001": {
                "order_id": "OOOLD0000001",
                "order_type": "hotel",
                "user_id": USER,
                "store_id": "H2",
                "total_price": 300.0,
                "create_time": "2025-03-01 10:00:00",
                "update_time": "2025-03-01 10:00:00",
                "status": "paid",
                "products": [
                    {
                        "product_id": "R2A",
                        "price": 300.0,
                        "quantity": 1,
                        "date": "2025-03-05",
                        "room_type": "Twin room",
                        "product_type": "target",
                    }
                ],
            },
        },
        "hotels": {
            "H1": {
                "hotel_id": "H1",
                "hotel_name": "Sheraton Hangzhou West Lake",
                "score": 4.8,
                "star_rating": 5,
                "location": loc("88 Lakeside Avenue, Hangzhou", 120.15, 30.25),
                "tags": ["breakfast", "wake-up service", "lake view"],
                "hotel_type": "target",
                "distraction_reason": "SECRET-REASON",
                "products": [
                    {
                        "product_id": "R1A",
                        "price": 680.0,
                        "quantity": 2,
                        "date": "2025-04-03",
                        "room_type": "Double bed room",
                        "product_type": "target",
                    },
                    {
                        "product_id": "R1B",
                        "price": 700.0,
                        "quantity": 1,
                        "date": "2025-04-04",
                        "room_type": "Double bed room",
                        "product_type": "target",
                    },
                    {
                        "product_id": "R1C",
                        "price": 500.0,
                        "quantity": 0,
                        "date": "2025-04-03",
                        "room_type": "Single room",
                        "product_type": "distraction",
                    },
                    {
                        "product_id": "R1OLD",
                        "price": 400.0,
                        "quantity": 5,
                        "date": "2025-03-20",
                        "room_type": "Single room",
                    },
                ],
            },
            "H2": {
                "hotel_id": "H2",
                "hotel_name": "Budget Inn Hangzhou Station",
                "score": 3.9,
                "star_rating": 2,
                "location": loc("5 Station Road, Hangzhou", 120.21, 30.29),
                "tags": ["cheap"],
                "hotel_type": "distraction",
                "distraction_reason": "SECRET-REASON",
                "products": [
                    {
                        "product_id": "R2A",
                        "price": 300.0,
                        "quantity": 3,
                        "date": "2025-04-03",
                        "room_type": "Twin room",
                        "product_type": "distraction",
                    }
                ],
            },
            "H3": {
                "hotel_name": "Bund Grand Hotel",
                "score": 4.5,
                "star_rating": 5,
                "location": loc("1 Zhongshan East Road, Shanghai", 121.49, 31.24),
                "tags": ["river view"],
                "products": [],
            },
        },
        "attractions": {
            "A1": {
                "attraction_id": "A1",
                "attraction_name": "Lingyin Temple",
                "location": loc("1 Fayun Lane, Hangzhou", 120.10, 30.24),
                "description": "Buddhist temple with grottoes",
                "score": 4.7,
                "opening_hours": "07:00-18:00",
                "ticket_price": 45.0,
                "attraction_type": "target",
                "category": "SECRET-CATEGORY",
                "products": [
                    {
                        "product_id": "TK1",
                        "price": 45.0,
                        "quantity": 10,
                        "date": "2025-04-03",
                        "ticket_type": "Adult",
                        "product_type": "target",
                    },
                    {
                        "product_id": "TK1",
                        "price": 45.0,
                        "quantity": 10,
                        "date": "2025-04-04",
                        "ticket_type": "Adult",
                    },
                ],
            },
            "A2": {
                "attraction_id": "A2",
                "attraction_name": "China Tea Museum",
                "location": loc("88 Longjing Road, Hangzhou", 120.13, 30.23),
                "description": "Museum about tea culture",
                "score": 4.4,
                "opening_hours": "09:00-16:30",
                "ticket_price": 0.0,
                "attraction_type": "distraction",
                "products": [],
            },
        },
        "flights": {
            "F1": {
                "flight_id": "F1",
                "flight_number": "CA1702",
                "departure_city": "Beijing",
                "arrival_city": "Hangzhou",
                "departure_airport_location": loc("Beijing Capital Airport", 116.6, 40.1),
                "arrival_airport_location": loc("Hangzhou Xiaoshan Airport", 120.43, 30.23),
                "departure_time": "08:00",
                "arrival_time": "10:10",
                "tags": ["meal"],
                "flight_type": "target",
                "products": [
                    {
                        "product_id": "S1",
                        "price": 900.0,
                        "quantity": 5,
                        "date": "2025-04-03",
                        "seat_type": "Economy",
                        "product_type": "target",
                    },
                    {
                        "product_id": "S2",
                        "price": 1100.0,
                        "quantity": 5,
                        "date": "2025-04-04",
                        "seat_type": "Economy",
                    },
                    {
                        "product_id": "S3",
                        "price": 700.0,
                        "quantity": 5,
                        "date": "2025-04-05",
                        "seat_type": "Economy",
                    },
                    {
                        "product_id": "S4",
                        "price": 3000.0,
                        "quantity": 1,
                        "date": "2025-04-03",
                        "seat_type": "Business",
                    },
                ],
            },
            "F2": {
                "flight_id": "F2",
                "flight_number": "MU5100",
                "departure_city": "Beijing",
                "arrival_city": "Shanghai",
                "departure_time": "09:00",
                "arrival_time": "11:15",
                "flight_type": "distraction",
                "products": [
                    {
                        "product_id": "S9",
                        "price": 800.0,
                        "quantity": 5,
                        "date": "2025-04-03",
                        "seat_type": "Economy",
                    }
                ],
            },
        },
        "trains": {
            "T1": {
                "train_id": "T1",
                "train_number": "G7301",
                "departure_city": "Shanghai",
                "arrival_city": "Hangzhou",
                "departure_time": "07:30",
                "arrival_time": "08:40",
                "train_type": "target",
                "tags": ["fast"],
                "products": [
                    {
                        "product_id": "TS1",
                        "price": 73.0,
                        "quantity": 3,
                        "date": "2025-04-03",
                        "seat_type": "Second class",
                    },
                    {
                        "product_id": "TS2",
                        "price": 117.0,
                        "quantity": 3,
                        "date": "2025-04-03",
                        "seat_type": "First class",
                    },
                    {
                        "product_id": "TS3",
                        "price": 80.0,
                        "quantity": 3,
                        "date": "2025-04-06",
                        "seat_type": "Second class",
                    },
                ],
            },
        },
        "taxis": {
            "X1": {
                "taxi_id": "X1",
                "taxi_type": "Comfort",
                "platform": "DiDi",
                "departure_location": loc("Hangzhou East Railway Station", 120.21, 30.29),
                "arrival_location": loc("88 Lakeside Avenue, Hangzhou", 120.15, 30.25),
                "estimated_duration": 25,
                "estimated_price": 38.0,
                "tags": ["quiet"],
                "category": "SECRET-CATEGORY",
                "products": [
                    {
                        "product_id": "XP1",
                        "price": 38.0,
                        "quantity": 2,
                        "taxi_type": "Comfort",
                        "platform": "DiDi",
                        "product_type": "target",
                    }
                ],
            },
            "X2": {
                "taxi_id": "X2",
                "taxi_type": "Economy",
                "platform": "Caocao",
                "departure_location": loc("Hangzhou Xiaoshan Airport", 120.43, 30.23),
                "arrival_location": loc("5 Station Road, Hangzhou", 120.21, 30.29),
                "estimated_duration": 45,
                "estimated_price": 90.0,
                "products": [
                    {
                        "product_id": "XP2",
                        "price": 90.0,
                        "date": "2025-04-03",
                        "taxi_type": "Economy",
                        "platform": "Caocao",
                    }
                ],
            },
        },
    }


def make(seed: int = 7, env_dict: dict[str, Any] | None = None) -> DomainEnvironment:
    env = build_environment("ota", env_dict or environment(), user_id=USER, time=NOW, seed=seed)
    assert isinstance(env, DomainEnvironment)
    return env


def ok(env: DomainEnvironment, name: str, **args: Any) -> Any:
    result = env.call(name, args)
    assert not result.error, result.content
    try:
        return json.loads(result.content)
    except json.JSONDecodeError:
        return result.content


def refused(env: DomainEnvironment, name: str, **args: Any) -> str:
    result = env.call(name, args)
    assert result.error, result.content
    return result.content


@pytest.fixture
def env() -> DomainEnvironment:
    return make()


# ----------------------------------------------------------------------------------------- build + schema


def test_build_has_the_44_official_tools_with_described_arguments(env: DomainEnvironment) -> None:
    assert len(env.tools) == 44
    assert OTA_TOOLS <= set(env.tools)
    assert env.domain == "ota" and env.time == NOW and env.user_id == USER
    for schema in env.tool_schemas():
        fn = schema["function"]
        assert fn["description"]
        for name, prop in fn["parameters"]["properties"].items():
            assert prop.get("description"), (fn["name"], name)
    create = env.tools["create_flight_order"].parameters
    assert list(create["properties"]) == ["flight_id", "seat_id", "user_id", "date", "quantity"]
    assert env.tools["create_hotel_order"].kind == "create"
    assert env.tools["search_hotel_order"].kind == "read"


def test_validate_reports_locations_relative_to_the_environment() -> None:
    validate_environment("ota", environment())
    bad = environment()
    del bad["hotels"]["H1"]["products"][0]["product_id"]
    with pytest.raises(pydantic.ValidationError) as info:
        validate_environment("ota", bad)
    assert info.value.errors()[0]["loc"] == ("hotels", "H1", "products", 0, "product_id")


def test_build_deep_copies_and_time_overrides() -> None:
    original = environment()
    snapshot = copy.deepcopy(original)
    env = make(env_dict=original)
    ok(env, "create_hotel_order", hotel_id="H1", room_id="R1A", user_id=USER)
    assert original == snapshot
    assert env.db.time == NOW
    assert env.db.hotels["H3"].hotel_id == "H3"  # the dict key fills a missing id


# ----------------------------------------------------------------------------------------- info + search


def test_info_tools(env: DomainEnvironment) -> None:
    hotel = ok(env, "get_ota_hotel_info", hotel_id="H1")
    assert hotel["hotel_name"] == "Sheraton Hangzhou West Lake"
    assert [p["product_id"] for p in hotel["products"]] == ["R1A", "R1B", "R1C", "R1OLD"]
    assert hotel["products"][0] == {
        "product_id": "R1A",
        "room_type": "Double bed room",
        "date": "2025-04-03",
        "price": 680.0,
        "quantity": 2,
    }
    assert ok(env, "get_ota_attraction_info", attraction_id="A1")["opening_hours"] == "07:00-18:00"
    assert ok(env, "get_ota_flight_info", flight_id="F1")["flight_number"] == "CA1702"
    assert ok(env, "get_ota_train_info", train_id="T1")["train_number"] == "G7301"
    taxi = ok(env, "get_taxi_info", taxi_id="X1")
    assert taxi["platform"] == "DiDi" and taxi["products"][0]["product_id"] == "XP1"
    assert "not found" in refused(env, "get_ota_hotel_info", hotel_id="H9")
    assert "not found" in refused(env, "get_taxi_info", taxi_id="X9")


def test_hotel_search_filters_by_city_and_ranks_by_key_words(env: DomainEnvironment) -> None:
    hits = ok(env, "hotel_search_recommand", city_name="Hangzhou", key_words=["Sheraton"])
    assert [h["hotel_id"] for h in hits] == ["H1", "H2"]
    assert "products" not in hits[0]
    hits = ok(env, "hotel_search_recommand", city_name="Hangzhou City", key_words=["Budget Inn"])
    assert [h["hotel_id"] for h in hits] == ["H2", "H1"]
    assert [h["hotel_id"] for h in ok(env, "hotel_search_recommand", city_name="Shanghai")] == ["H3"]
    empty = ok(env, "hotel_search_recommand", city_name="Chongqing")
    assert empty["results"] == [] and "No hotel" in empty["message"]


def test_attraction_search(env: DomainEnvironment) -> None:
    hits = ok(env, "attractions_search_recommend", city_name="Hangzhou", key_words=["tea museum"])
    assert [a["attraction_id"] for a in hits] == ["A2", "A1"]
    assert ok(env, "attractions_search_recommend", city_name="Xi'an", key_words=["temple"])["results"] == []


def test_flight_and_train_search(env: DomainEnvironment) -> None:
    flights = ok(env, "flight_search_recommend", departure="Beijing", destination="Hangzhou")
    assert [f["flight_id"] for f in flights] == ["F1"]
    assert len(flights[0]["products"]) == 4  # every date: the official search has no date filter
    assert ok(env, "flight_search_recommend", departure="Hangzhou", destination="Beijing")["results"] == []
    trains = ok(env, "train_ticket_search", departure="Shanghai", destination="Hangzhou", date="2025-04-03")
    assert [t["train_id"] for t in trains] == ["T1"]
    assert [p["product_id"] for p in trains[0]["products"]] == ["TS1", "TS2"]
    assert (
        ok(env, "train_ticket_search", departure="Shanghai", destination="Hangzhou", date="2025-04-05")[
            "results"
        ]
        == []
    )
    assert "Invalid date" in refused(
        env, "train_ticket_search", departure="Shanghai", destination="Hangzhou", date="April 3"
    )


def test_taxi_search_matches_or_says_nothing_found(env: DomainEnvironment) -> None:
    hits = ok(
        env,
        "taxi_search",
        departure_location="Hangzhou East Railway Station",
        arrival_location="88 Lakeside Avenue",
    )
    assert [t["taxi_id"] for t in hits] == ["X1"]
    # Official bug: no match fell back to every taxi.
    empty = ok(
        env, "taxi_search", departure_location="Shenzhen Bao'an Airport", arrival_location="Futian CBD"
    )
    assert empty["results"] == [] and "No taxi" in empty["message"]


# ----------------------------------------------------------------------------------------- orders


def test_hotel_order_lifecycle(env: DomainEnvironment) -> None:
    order = ok(env, "create_hotel_order", hotel_id="H1", room_id="R1A", user_id=USER)
    assert order["status"] == "unpaid" and order["hotel_name"] == "Sheraton Hangzhou West Lake"
    assert order["total_price"] == 680.0
    assert order["products"] == [
        {
            "product_id": "R1A",
            "price": 680.0,
            "quantity": 1,
            "date": "2025-04-03",
            "room_type": "Double bed room",
        }
    ]
    assert env.db.hotels["H1"].products[0].quantity == 1
    oid = order["order_id"]
    # The default status filter is paid: only the order already in the database.
    assert [o["order_id"] for o in ok(env, "search_hotel_order", user_id=USER)] == ["OOOLD0000001"]
    assert ok(env, "pay_hotel_order", order_id=oid)["status"] == "paid"
    assert "must be unpaid" in refused(env, "pay_hotel_order", order_id=oid)
    assert [o["order_id"] for o in ok(env, "search_hotel_order", user_id=USER, date="2025-04-03")] == [oid]
    assert [o["order_id"] for o in ok(env, "search_hotel_order", user_id=USER)] == ["OOOLD0000001", oid]
    assert ok(env, "get_hotel_order_detail", order_id=oid)["status"] == "paid"
    cancelled = ok(env, "cancel_hotel_order", order_id=oid, user_id=USER)
    assert cancelled["refund"] == 680.0 and cancelled["status"] == "cancelled"
    assert env.db.hotels["H1"].products[0].quantity == 2  # inventory returned
    assert "already cancelled" in refused(env, "cancel_hotel_order", order_id=oid, user_id=USER)
    assert [o["order_id"] for o in ok(env, "search_hotel_order", user_id=USER, status="cancelled")] == [oid]


def test_hotel_order_refusals(env: DomainEnvironment) -> None:
    before = dict(env.db.orders)
    # Official bug: an unknown room produced an empty zero-priced order.
    assert "no room" in refused(env, "create_hotel_order", hotel_id="H1", room_id="R2A", user_id=USER)
    assert "not found" in refused(env, "create_hotel_order", hotel_id="H9", room_id="R1A", user_id=USER)
    assert "User ID does not match" in refused(
        env, "create_hotel_order", hotel_id="H1", room_id="R1A", user_id="U999"
    )
    assert "inventory" in refused(env, "create_hotel_order", hotel_id="H1", room_id="R1C", user_id=USER)
    assert "past" in refused(env, "create_hotel_order", hotel_id="H1", room_id="R1OLD", user_id=USER)
    assert "unknown argument" in refused(
        env, "create_hotel_order", hotel_id="H1", room_id="R1A", user_id=USER, date="2025-04-03"
    )
    assert env.db.orders == before
    assert env.tool_errors == 6


def test_search_hotel_order_without_orders_is_an_empty_list() -> None:
    data = environment()
    data["orders"] = {}
    env = make(env_dict=data)
    assert ok(env, "search_hotel_order", user_id=USER) == []
    assert ok(env, "search_flight_order", user_id=USER, status="unpaid") == []
    assert "User ID does not match" in refused(env, "search_hotel_order", user_id="U2")
    assert "Unknown status" in refused(env, "search_hotel_order", user_id=USER, status="done")


def test_attraction_order(env: DomainEnvironment) -> None:
    order = ok(
        env,
        "create_attraction_order",
        attraction_id="A1",
        ticket_id="TK1",
        user_id=USER,
        date="2025-04-04",
        quantity=3,
    )
    assert order["total_price"] == 135.0 and order["products"][0]["date"] == "2025-04-04"
    assert order["products"][0]["ticket_type"] == "Adult"
    assert env.db.attractions["A1"].products[1].quantity == 7
    assert env.db.attractions["A1"].products[0].quantity == 10
    assert "not available on 2025-04-09" in refused(
        env,
        "create_attraction_order",
        attraction_id="A1",
        ticket_id="TK1",
        user_id=USER,
        date="2025-04-09",
        quantity=1,
    )
    assert "positive integer" in refused(
        env,
        "create_attraction_order",
        attraction_id="A1",
        ticket_id="TK1",
        user_id=USER,
        date="2025-04-04",
        quantity=0,
    )
    assert "inventory" in refused(
        env,
        "create_attraction_order",
        attraction_id="A1",
        ticket_id="TK1",
        user_id=USER,
        date="2025-04-04",
        quantity=8,
    )
    assert "no product" in refused(
        env,
        "create_attraction_order",
        attraction_id="A1",
        ticket_id="TKX",
        user_id=USER,
        date="2025-04-04",
        quantity=1,
    )
    oid = order["order_id"]
    unpaid_cancel = ok(env, "cancel_attraction_order", order_id=oid, user_id=USER)
    assert unpaid_cancel["refund"] == 0.0
    assert env.db.attractions["A1"].products[1].quantity == 10
    assert ok(env, "search_attraction_order", user_id=USER, status="cancelled")[0]["order_id"] == oid
    assert ok(env, "get_attraction_order_detail", order_id=oid)["attraction_name"] == "Lingyin Temple"


def test_flight_order_pay_and_modify(env: DomainEnvironment) -> None:
    order = ok(
        env, "create_flight_order", flight_id="F1", seat_id="S1", user_id=USER, date="2025-04-03", quantity=2
    )
    oid = order["order_id"]
    assert order["flight_number"] == "CA1702" and order["total_price"] == 1800.0
    assert "Only paid" in refused(
        env, "modify_flight_order", order_id=oid, user_id=USER, new_date="2025-04-04"
    )
    ok(env, "pay_flight_order", order_id=oid)
    # Dearer date: the difference is due and the order waits for payment again.
    moved = ok(env, "modify_flight_order", order_id=oid, user_id=USER, new_date="2025-04-04")
    assert moved["price_difference"] == 400.0 and moved["order"]["status"] == "unpaid"
    assert moved["order"]["products"][0]["product_id"] == "S2" and moved["order"]["total_price"] == 2200.0
    products = env.db.flights["F1"].products
    assert (products[0].quantity, products[1].quantity) == (5, 3)
    ok(env, "pay_flight_order", order_id=oid)
    cheaper = ok(env, "modify_flight_order", order_id=oid, user_id=USER, new_date="2025-04-05")
    assert cheaper["price_difference"] == -800.0 and cheaper["order"]["status"] == "paid"
    assert "No Economy seat on 2025-04-07" in refused(
        env, "modify_flight_order", order_id=oid, user_id=USER, new_date="2025-04-07"
    )
    assert "already" in refused(env, "modify_flight_order", order_id=oid, user_id=USER, new_date="2025-04-05")
    assert [o["order_id"] for o in ok(env, "search_flight_order", user_id=USER, date="2025-04-05")] == [oid]
    assert ok(env, "get_flight_order_detail", order_id=oid)["products"][0]["seat_type"] == "Economy"
    assert ok(env, "cancel_flight_order", order_id=oid, user_id=USER)["refund"] == 1400.0
    assert "not available" in refused(
        env, "create_flight_order", flight_id="F1", seat_id="S1", user_id=USER, date="2025-04-04", quantity=1
    )
    assert "past" in refused(
        env, "create_flight_order", flight_id="F1", seat_id="S1", user_id=USER, date="2025-03-03", quantity=1
    )


def test_train_order_and_wrong_type_ids(env: DomainEnvironment) -> None:
    order = ok(
        env, "create_train_order", train_id="T1", seat_id="TS1", user_id=USER, date="2025-04-03", quantity=1
    )
    oid = order["order_id"]
    assert order["train_number"] == "G7301" and order["departure_city"] == "Shanghai"
    ok(env, "pay_train_order", order_id=oid)
    moved = ok(env, "modify_train_order", order_id=oid, user_id=USER, new_date="2025-04-06")
    assert moved["price_difference"] == 7.0 and moved["order"]["products"][0]["product_id"] == "TS3"
    assert "User ID does not match" in refused(
        env, "modify_train_order", order_id=oid, user_id="U2", new_date="2025-04-03"
    )
    # An order id of another type is not found by the typed tools.
    assert "not found" in refused(env, "get_hotel_order_detail", order_id=oid)
    assert "not found" in refused(env, "pay_hotel_order", order_id=oid)
    assert "not found" in refused(env, "cancel_flight_order", order_id=oid, user_id=USER)
    assert ok(env, "search_train_order", user_id=USER, status="unpaid")[0]["order_id"] == oid
    assert ok(env, "get_train_order_detail", order_id=oid)["train_id"] == "T1"
    assert ok(env, "cancel_train_order", order_id=oid, user_id=USER)["refund"] == 0.0


def test_taxi_orders_work_end_to_end(env: DomainEnvironment) -> None:
    # Official bug: create_taxi_order always failed with "Unsupported scenario type: taxi".
    order = ok(env, "create_taxi_order", taxi_id="X1", product_id="XP1", user_id=USER)
    oid = order["order_id"]
    assert order["platform"] == "DiDi" and order["total_price"] == 38.0
    assert order["departure_location"] == "Hangzhou East Railway Station"
    assert order["products"][0]["taxi_type"] == "Comfort"
    assert ok(env, "pay_taxi_order", order_id=oid)["status"] == "paid"
    assert [o["order_id"] for o in ok(env, "search_taxi_order", user_id=USER)] == [oid]
    assert ok(env, "get_taxi_order_detail", order_id=oid)["taxi_id"] == "X1"
    assert ok(env, "cancel_taxi_order", order_id=oid, user_id=USER)["refund"] == 38.0
    assert ok(env, "search_taxi_order", user_id=USER) == []
    two = ok(env, "create_taxi_order", taxi_id="X2", product_id="XP2", user_id=USER, quantity=2)
    assert two["total_price"] == 180.0 and two["products"][0]["date"] == "2025-04-03"
    assert "no product" in refused(env, "create_taxi_order", taxi_id="X1", product_id="XP2", user_id=USER)
    assert "inventory" in refused(
        env, "create_taxi_order", taxi_id="X1", product_id="XP1", user_id=USER, quantity=3
    )


def test_records_are_flat_views_with_new_flag(env: DomainEnvironment) -> None:
    ok(env, "create_hotel_order", hotel_id="H1", room_id="R1B", user_id=USER)
    ok(env, "create_flight_order", flight_id="F1", seat_id="S1", user_id=USER, date="2025-04-03", quantity=2)
    ok(env, "create_taxi_order", taxi_id="X1", product_id="XP1", user_id=USER)
    records = {r["record_type"]: r for r in env.records()}
    assert env.records()[0]["record_id"] == "OOOLD0000001" and env.records()[0]["new"] is False
    hotel, flight, taxi = records["hotel"], records["flight"], records["taxi"]
    assert hotel["new"] is True and hotel["entity_id"] == "H1" and hotel["dates"] == ["2025-04-04"]
    assert hotel["product_ids"] == ["R1B"] and hotel["status"] == "unpaid" and hotel["total_price"] == 700.0
    assert flight["quantities"] == [2] and flight["total_quantity"] == 2 and flight["product_ids"] == ["S1"]
    assert taxi["entity_id"] == "X1" and taxi["dates"] == [] and taxi["create_time"] == NOW
    all_orders = ok(env, "get_user_all_orders")
    assert [o["order_type"] for o in all_orders] == ["hotel", "hotel", "flight", "taxi"]
    assert all_orders[0]["hotel_name"] == "Budget Inn Hangzhou Station"


def test_order_ids_are_deterministic_per_seed() -> None:
    def ids(seed: int) -> list[str]:
        env = make(seed)
        return [
            ok(env, "create_hotel_order", hotel_id="H2", room_id="R2A", user_id=USER)["order_id"],
            ok(env, "create_taxi_order", taxi_id="X1", product_id="XP1", user_id=USER)["order_id"],
        ]

    first = ids(3)
    assert first == ids(3)
    assert first != ids(4)
    assert len(set(first)) == 2 and all(i.startswith("OO") for i in first)


def test_no_hidden_marker_reaches_any_output_or_schema(env: DomainEnvironment) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_ota_hotel_info", {"hotel_id": "H1"}),
        ("get_ota_hotel_info", {"hotel_id": "H2"}),
        ("get_ota_attraction_info", {"attraction_id": "A1"}),
        ("get_ota_flight_info", {"flight_id": "F1"}),
        ("get_ota_train_info", {"train_id": "T1"}),
        ("get_taxi_info", {"taxi_id": "X1"}),
        ("hotel_search_recommand", {"city_name": "Hangzhou"}),
        ("attractions_search_recommend", {"city_name": "Hangzhou", "key_words": ["temple"]}),
        ("flight_search_recommend", {"departure": "Beijing", "destination": "Hangzhou"}),
        ("flight_search_recommend", {"departure": "Beijing", "destination": "Shanghai"}),
        ("train_ticket_search", {"departure": "Shanghai", "destination": "Hangzhou", "date": "2025-04-03"}),
        (
            "taxi_search",
            {
                "departure_location": "Hangzhou East Railway Station",
                "arrival_location": "88 Lakeside Avenue, Hangzhou",
            },
        ),
        ("create_hotel_order", {"hotel_id": "H1", "room_id": "R1A", "user_id": USER}),
        (
            "create_attraction_order",
            {"attraction_id": "A1", "ticket_id": "TK1", "user_id": USER, "date": "2025-04-03", "quantity": 1},
        ),
        (
            "create_flight_order",
            {"flight_id": "F1", "seat_id": "S1", "user_id": USER, "date": "2025-04-03", "quantity": 1},
        ),
        (
            "create_train_order",
            {"train_id": "T1", "seat_id": "TS1", "user_id": USER, "date": "2025-04-03", "quantity": 1},
        ),
        ("create_taxi_order", {"taxi_id": "X1", "product_id": "XP1", "user_id": USER}),
        ("search_hotel_order", {"user_id": USER}),
        ("get_hotel_order_detail", {"order_id": "OOOLD0000001"}),
        ("get_user_all_orders", {}),
        ("get_nearby", {"longitude": 120.15, "latitude": 30.25, "range": 100000}),
    ]
    texts = []
    for name, args in calls:
        result = env.call(name, args)
        assert not result.error, (name, result.content)
        texts.append(result.content)
    texts.append(json.dumps(env.tool_schemas()))
    blob = "\n".join(texts)
    for marker in HIDDEN_KEYS:
        assert f'"{marker}"' not in blob, marker
    for value in HIDDEN_VALUES:
        assert f'"{value}"' not in blob, value
    assert "SECRET" not in blob


def test_ota_tools_work_in_a_merged_multi_domain_environment() -> None:
    from pytest_vitabench.domains import build_environment

    env = build_environment("delivery,ota", environment(), user_id=USER, time=NOW, seed=1)
    assert OTA_TOOLS <= set(env.tools)
    assert env.db.hotels["H3"].hotel_id == "H3"  # the ota id-filling validator still runs
    order = ok(env, "create_taxi_order", taxi_id="X1", product_id="XP1", user_id=USER)
    assert order["platform"] == "DiDi" and order["taxi_id"] == "X1"
    assert [r["record_type"] for r in env.records() if r["new"]] == ["taxi"]
