"""Acceptance: answer markers in the data never reach the agent (tool outputs, descriptions, schemas).

Every VitaBench 1.0 delivery environment (en and zh) gets hidden markers injected (the released 1.0
delivery data has none), is built as a delivery environment and, converted to shops, as an instore one;
then every tool is called with plausible arguments and every agent-visible string is scanned.
"""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from _paths import VB1_DIR, VB1_SKIP_REASON

from pytest_vitabench.domains import build_environment

MARKERS = ("target", "distraction", "normal", "irrelevant")
REASON = "LEAK-REASON-7f3a"
CATEGORY = "LEAK-CATEGORY-7f3a"
_MARKER_PAIR = re.compile(r'_type"?\s*[:=]\s*"?(?:target|distraction|normal|irrelevant)\b', re.IGNORECASE)


def leaks(text: str) -> list[str]:
    """Every leak found in one agent-visible string."""
    found = [
        s
        for s in ("distraction_reason", "target_product_ids", REASON, CATEGORY, '"target"', '"distraction"')
        if s in text
    ]
    found += _MARKER_PAIR.findall(text)
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return found

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, item in node.items():
                if key.endswith("_type") and isinstance(item, str) and item.lower() in MARKERS:
                    found.append(f"{key}={item}")
                walk(item)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(value)
    return found


def load(language: str) -> list[dict[str, Any]]:
    path = VB1_DIR / f"delivery_tasks_{language}.json"
    if not path.exists():
        pytest.skip(VB1_SKIP_REASON)
    return json.loads(path.read_text(encoding="utf-8"))


def inject(environment: dict[str, Any]) -> dict[str, Any]:
    """A copy of a delivery environment with answer markers on every entity."""
    data = copy.deepcopy(environment)
    data["target_product_ids"] = []
    for i, store in enumerate(data["stores"].values()):
        store.update(store_type=MARKERS[i % 2], distraction_reason=REASON, category=CATEGORY)
        for j, product in enumerate(store["products"]):
            product.update(product_type=MARKERS[j % 4], distraction_reason=REASON, category=CATEGORY)
            data["target_product_ids"].append(product["product_id"])
    for order in data.get("orders", {}).values():
        order.update(order_kind_type="target", distraction_reason=REASON)
        for product in order["products"]:
            product.update(product_type="target", distraction_reason=REASON)
    for loc in data.get("location", []):
        loc.update(location_type="irrelevant")
    for weather in data.get("weather", []):
        weather.update(weather_type="normal")
    return data


def as_instore(data: dict[str, Any]) -> dict[str, Any]:
    """The same environment with stores turned into bookable shops (markers kept)."""
    shops = {}
    for key, store in data["stores"].items():
        shop = {k: v for k, v in store.items() if k not in ("name", "store_id", "store_type", "products")}
        shop.update(
            shop_id=store["store_id"],
            shop_name=store["name"],
            shop_type=store["store_type"],
            enable_book=True,
            book_price=20,
            enable_reservation=True,
        )
        shop["products"] = [
            {
                **{k: v for k, v in p.items() if k not in ("store_id", "store_name", "attributes")},
                "shop_id": store["store_id"],
                "quantity": 5,
            }
            for p in store["products"]
        ]
        shops[key] = shop
    out = {k: v for k, v in data.items() if k != "stores"}
    out["orders"] = {}
    out["shops"] = shops
    out["reservations"] = {
        "R0": {
            "reservation_id": "R0",
            "shop_id": next(iter(shops)),
            "customer_count": 2,
            "reservation_time": data["time"],
            "update_time": data["time"],
            "customer_id": data["user_id"],
            "status": "consumed",
            "reservation_type": "target",
            "distraction_reason": REASON,
        }
    }
    return out


def later(time: str, hours: int = 2) -> str:
    return (datetime.strptime(time, "%Y-%m-%d %H:%M:%S") + timedelta(hours=hours)).strftime(
        "%Y-%m-%d %H:%M:%S"
    )


def run_shared(env, data, outputs) -> None:
    uid, day = data["user_id"], data["time"][:10]
    loc = data["location"][0]
    outputs.append(
        env.call(
            "longitude_latitude_to_distance",
            {
                "longitude1": loc["longitude"],
                "latitude1": loc["latitude"],
                "longitude2": 0.0,
                "latitude2": 0.0,
            },
        )
    )
    city = data["weather"][0]["city"] if data.get("weather") else "Beijing"
    outputs.append(env.call("weather", {"address": city, "date_start": day, "date_end": day}))
    outputs.append(env.call("address_to_longitude_latitude", {"address": loc["address"]}))
    outputs.append(env.call("get_date_holiday_info", {"date": day}))
    outputs.append(env.call("get_holiday_date", {"year": day[:4], "holiday_name": "Spring Festival"}))
    outputs.append(
        env.call("get_nearby", {"longitude": loc["longitude"], "latitude": loc["latitude"], "range": 20000.0})
    )
    outputs.append(env.call("get_user_all_orders", {}))
    assert uid == env.db.user_id


def run_delivery(env, data, outputs) -> None:
    uid = data["user_id"]
    call = lambda name, **kw: outputs.append(env.call(name, kw)) or outputs[-1]  # noqa: E731
    call("delivery_distance_to_time", distance=1500.0)
    for store in data["stores"].values():
        call("get_delivery_store_info", store_id=store["store_id"])
        call("delivery_store_search_recommand", keywords=[store["name"]])
        for product in store["products"]:
            call("get_delivery_product_info", product_id=product["product_id"])
        words = store["products"][0]["name"].split()[:2] if store["products"] else ["food"]
        call("delivery_product_search_recommand", keywords=words)
    store = next(iter(data["stores"].values()))
    created = call(
        "create_delivery_order",
        user_id=uid,
        store_id=store["store_id"],
        product_ids=[store["products"][0]["product_id"]],
        product_cnts=[1],
        address=data["location"][0]["address"],
        dispatch_time=data["time"],
        note="leave at door",
    )
    assert not created.error, created.content
    order_id = json.loads(created.content)["order_id"]
    call("get_delivery_order_status", order_id=order_id)
    call("search_delivery_orders", user_id=uid)
    call("pay_delivery_order", order_id=order_id)
    call("modify_delivery_order", order_id=order_id, note="call me")
    for oid in [order_id, *data.get("orders", {})]:
        call("get_delivery_order_detail", order_id=oid)
    call("search_delivery_orders", user_id=uid, status="")
    call("cancel_delivery_order", order_id=order_id)
    run_shared(env, data, outputs)


def run_instore(env, data, outputs) -> None:
    uid = data["user_id"]
    call = lambda name, **kw: outputs.append(env.call(name, kw)) or outputs[-1]  # noqa: E731
    for shop in data["shops"].values():
        call("instore_shop_search_recommend", keywords=[shop["shop_name"]])
        words = shop["products"][0]["name"].split()[:2] if shop["products"] else ["food"]
        call("instore_product_search_recommend", keywords=words)
    shop = next(iter(data["shops"].values()))
    created = call(
        "create_instore_product_order",
        user_id=uid,
        shop_id=shop["shop_id"],
        product_id=shop["products"][0]["product_id"],
        quantity=1,
    )
    assert not created.error, created.content
    order_id = json.loads(created.content)["order_id"]
    call("pay_instore_order", order_id=order_id)
    call("get_instore_orders", user_id=uid)
    call("instore_cancel_order", order_id=order_id)
    book = call(
        "instore_book", user_id=uid, shop_id=shop["shop_id"], time=later(data["time"]), customer_count=2
    )
    assert not book.error, book.content
    book_id = json.loads(book.content)["book_id"]
    call("pay_instore_book", book_id=book_id)
    call("search_instore_book", user_id=uid, book_id=book_id)
    call("get_instore_books", user_id=uid)
    call("instore_cancel_book", book_id=book_id)
    res = call("instore_reservation", user_id=uid, shop_id=shop["shop_id"], time=later(data["time"]))
    assert not res.error, res.content
    rid = json.loads(res.content)["reservation_id"]
    call("instore_modify_reservation", reservation_id=rid, time=later(data["time"], 3), customer_count=3)
    call("search_instore_reservation", user_id=uid)
    call("search_instore_reservation", user_id=uid, reservation_id="R0")
    call("get_instore_reservations", user_id=uid)
    call("instore_cancel_reservation", reservation_id=rid)
    run_shared(env, data, outputs)


def test_leak_detector_catches_raw_data():
    # Guard against a detector that can never fire: the injected raw data must be flagged.
    raw = {
        "time": "2025-01-01 00:00:00",
        "user_id": "U",
        "location": [],
        "weather": [],
        "stores": {"S": {"store_id": "S", "name": "n", "products": [{"product_id": "P", "name": "p"}]}},
    }
    assert leaks(json.dumps(inject(raw)))
    assert leaks('{"name": "x", "hotel_type": "distraction"}') and not leaks('{"seat_type": "economy"}')


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("domain", ["delivery", "instore"])
def test_no_hidden_field_reaches_the_agent(language, domain):
    found: dict[str, list[str]] = {}
    for task in load(language):
        data = inject(task["environment"])
        if domain == "instore":
            data = as_instore(data)
        env = build_environment(
            domain, data, user_id=data["user_id"], time=data["time"], seed=0, language=language
        )
        outputs: list = []
        (run_delivery if domain == "delivery" else run_instore)(env, data, outputs)
        texts = [json.dumps(env.tool_schemas(), ensure_ascii=False)]
        for result in outputs:
            texts.append(result.content)
        for text in texts:
            hits = leaks(text)
            if hits:
                found.setdefault(task["id"], []).extend(hits)
    assert not found, f"hidden fields leaked in {len(found)} task(s): {dict(list(found.items())[:3])}"


@pytest.mark.parametrize("domain", ["delivery", "instore"])
def test_every_tool_is_exercised(domain, monkeypatch):
    # The leak test is only as good as its coverage: it must call every tool of the domain.
    task = load("en")[0]
    data = inject(task["environment"])
    if domain == "instore":
        data = as_instore(data)
    env = build_environment(domain, data, user_id=data["user_id"], time=data["time"], seed=0)
    seen: set[str] = set()
    original = env.call

    def spy(name, arguments):
        seen.add(name)
        return original(name, arguments)

    monkeypatch.setattr(env, "call", spy)
    (run_delivery if domain == "delivery" else run_instore)(env, data, [])
    assert seen == set(env.tools)
