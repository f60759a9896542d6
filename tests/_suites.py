"""A tiny official-format suite for tests: two users, three subtasks, every rubric machine-checked.

Built in code so each test can break a copy of it on purpose.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

_LOCATION = {"address": "No. 1 Test Road, Home", "longitude": 116.40, "latitude": 39.90}


def _store(store_id: str, name: str, score: float, products: list[tuple[str, str, float, list[str], str]],
           tags: list[str] | None = None) -> dict[str, Any]:
    return {
        "store_id": store_id, "name": name, "score": score, "tags": tags or [],
        "location": {"address": f"{name} shop, Test Road", "longitude": 116.41, "latitude": 39.91},
        "products": [
            {"product_id": pid, "name": pname, "price": price, "tags": ptags, "attributes": [],
             "product_type": ptype, **({"distraction_reason": "breaks a preference"} if ptype == "distraction" else {})}
            for pid, pname, price, ptags, ptype in products
        ],
    }


def delivery_subtask(subtask_id: str, time: str = "2025-06-01 11:00:00") -> dict[str, Any]:
    return {
        "subtask_id": subtask_id,
        "domain": "delivery",
        "current_time": time[:10],
        "instruction": "Order me a bowl of noodles for lunch.",
        "interactions": [
            {"date": "2025-05-01", "behavior": [{"behavior_type": "search", "content": {"keyword": "noodles"}}],
             "dialogue": [{"role": "user", "content": "I can't stand cilantro in my noodles."}]},
        ],
        "environment": {
            "time": time, "user_id": "U1", "orders": {}, "weather": [], "location": [_LOCATION],
            "stores": {
                "S1": _store("S1", "Popular Noodles", 4.9,
                             [("P1", "Beef noodles with cilantro", 30, ["cilantro"], "distraction")],
                             ["popular"]),
                "S2": _store("S2", "Quiet Noodles", 4.5,
                             [("P2", "Beef noodles, no cilantro", 28, ["no cilantro"], "target")]),
            },
        },
        "user_scenario": {"user_profile": {"user_id": "U1"},
                          "personalized_preference_memory": {"current": {"food": ["no cilantro"]}}},
        "evaluation_criteria": {"expected_states": [{"state_rubrics": ["The order is for product P2"]}],
                                "overall_rubrics": ["The order is paid"]},
        "target_product_ids": ["P2"],
        "skill_tested": ["personalize"],
        "rubric_checks": [
            {"rubric": "The order is for product P2",
             "check": {"kind": "record", "record_type": "delivery",
                       "where": {"product_ids": {"includes_all": ["P2"]}}}},
            {"rubric": "The order is paid",
             "check": {"kind": "record", "record_type": "delivery", "where": {"status": {"eq": "paid"}}}},
        ],
    }


def tiny_suite() -> list[dict[str, Any]]:
    first = delivery_subtask("s1", "2025-06-01 11:00:00")
    second = delivery_subtask("s2", "2025-06-08 11:00:00")
    second["skill_tested"] = ["proactive"]
    second["user_intention"] = "You want two bowls."
    other = delivery_subtask("s1", "2025-07-01 18:00:00")
    other["environment"]["user_id"] = "U2"
    return [
        {"id": "U1", "user_id": "U1", "user_profile": {"user_id": "U1", "city": "Beijing"},
         "subtasks": [first, second]},
        {"id": "U2", "user_id": "U2", "user_profile": {"user_id": "U2"}, "subtasks": [other]},
    ]


def write_suite(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def broken(mutate: Any) -> list[dict[str, Any]]:
    """A copy of the tiny suite changed by ``mutate(suite)``."""
    data = copy.deepcopy(tiny_suite())
    mutate(data)
    return data
