"""A many-user suite and an LLM agent scripted at the stub, for the run-engine tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from _stub_llm import StubLLM, tool_call
from _suites import tiny_suite

#: Requests each item makes with :func:`even_odd_answer`: order, pay, stop.
REQUESTS_PER_ITEM = 3


def many_users(users: int, subtasks: int = 2) -> list[dict[str, Any]]:
    """``users`` copies of the tiny suite's first user, each with ``subtasks`` subtasks."""
    template = tiny_suite()[0]
    out = []
    for u in range(users):
        user = copy.deepcopy(template)
        user["id"] = f"U{u + 1}"
        base = user["subtasks"][0]
        user["subtasks"] = []
        for s in range(subtasks):
            sub = copy.deepcopy(base)
            sub["subtask_id"] = f"s{s + 1}"
            sub["environment"]["time"] = f"2025-06-{s + 1:02d} 11:00:00"
            sub["current_time"] = f"2025-06-{s + 1:02d}"
            user["subtasks"].append(sub)
        out.append(user)
    return out


def write_many(path: Path, users: int, subtasks: int = 2) -> Path:
    path.write_text(json.dumps(many_users(users, subtasks)), encoding="utf-8")
    return path


def even_odd_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The agent's next message: the right order on even trial seeds, the popular wrong one on odd seeds,
    then payment, then stop; a deterministic function of the request, whatever the order of arrival."""
    tools = [m for m in request["messages"] if m["role"] == "tool"]
    if not tools:
        store, product = ("S2", "P2") if request.get("seed", 0) % 2 == 0 else ("S1", "P1")
        return {"tool_calls": [tool_call("a", "create_delivery_order", {
            "user_id": "U1", "store_id": store, "product_ids": [product], "product_cnts": [1],
            "address": "No. 1 Test Road, Home", "dispatch_time": "2030-01-01 00:00:00"})]}
    if len(tools) == 1:
        order_id = json.loads(tools[0]["content"])["order_id"]
        return {"tool_calls": [tool_call("b", "pay_delivery_order", {"order_id": order_id})]}
    return {"content": "Ordered and paid. ###STOP###"}


def scripted_stub(delay: float, answers: int = 5000) -> StubLLM:
    stub = StubLLM(delay=delay)
    stub.replies += [even_odd_answer] * answers
    return stub
