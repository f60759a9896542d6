"""Replay write calls through the official in-store tools and print each final state as JSON.

Run with the official harness's python (``VITA_OFFICIAL_PYTHON``, ``PYTHONPATH=<copy>/src``); it imports
nothing of ours. stdin: a list of ``{"environment": ..., "calls": [{"tool", "arguments"}]}``; an argument
``{"$created": i}`` stands for the id of the record that call ``i`` created. stdout: per task, each call's
result (text, whether it raised, the id it created) and the final ``orders``, ``reservations``, ``books``.
"""

from __future__ import annotations

import json
import sys

from vita.domains.instore.data_model import InStoreDB
from vita.domains.instore.tools import InStoreTools

DB_KEYS = ("shops", "orders", "reservations", "books", "time", "user_id", "weather", "location",
           "user_historical_behaviors")


def replay(environment: dict, calls: list[dict]) -> dict:
    data = {key: value for key, value in environment.items() if key in DB_KEYS}
    for container in ("shops", "orders", "reservations", "books"):
        data[container] = data.get(container) or {}
    db = InStoreDB.model_validate(data)
    tools = InStoreTools(db)
    created: list[str] = []
    results = []
    for call in calls:
        arguments = {k: created[v["$created"]] if isinstance(v, dict) and "$created" in v else v
                     for k, v in call["arguments"].items()}
        before = set(db.orders) | set(db.reservations) | set(db.books)
        method = getattr(type(tools), call["tool"])
        # The tool wrapper turns a failed assertion into a plain result string; call what it wraps, so that
        # a refusal shows as one.
        method = getattr(method, "__wrapped__", method)
        try:
            text, raised = str(method(tools, **arguments)), False
        except Exception as exc:  # the official tools refuse by raising (assertions, ValueError)
            text, raised = f"{type(exc).__name__}: {exc}", True
        made = sorted((set(db.orders) | set(db.reservations) | set(db.books)) - before)
        created.append(made[0] if made else "")
        results.append({"text": text[:300], "raised": raised, "created": created[-1]})
    return {"results": results,
            "orders": {k: v.model_dump(mode="json") for k, v in db.orders.items()},
            "reservations": {k: v.model_dump(mode="json") for k, v in db.reservations.items()},
            "books": {k: v.model_dump(mode="json") for k, v in db.books.items()}}


if __name__ == "__main__":
    json.dump([replay(task["environment"], task["calls"]) for task in json.load(sys.stdin)], sys.stdout)
