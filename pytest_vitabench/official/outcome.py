"""The official outcome judge's inputs (``--vita-deviation outcome=official``; the outcome row of
docs/official-profile.md).

The last official write call whose entity resolves in the subtask's *raw* environment (failed or not) is
shown to the judge, sanitised, next to the *target* entity. This is what the judge model sees, never the agent.
"""

from __future__ import annotations

from typing import Any

from ..messages import Message
from ..text.vocabulary import is_hidden, is_marker_key

#: Per official write tool: the container, the entity-id argument, the product-id argument and extra arguments shown.
_RESOLVE: dict[str, tuple[str, str, str | None, tuple[str, ...]]] = {
    "create_delivery_order": ("stores", "store_id", "product_ids", ("address", "dispatch_time", "attributes", "note")),
    "create_instore_product_order": ("shops", "shop_id", "product_id", ("quantity",)),
    "instore_reservation": ("shops", "shop_id", None, ("time", "customer_count")),
    "instore_book": ("shops", "shop_id", None, ("time", "customer_count")),
    "create_hotel_order": ("hotels", "hotel_id", "room_id", ()),
    "create_flight_order": ("flights", "flight_id", "seat_id", ("date", "quantity")),
    "create_train_order": ("trains", "train_id", "seat_id", ("date", "quantity")),
    "create_attraction_order": ("attractions", "attraction_id", "ticket_id", ("date", "quantity")),
}
#: The official evaluator's own list of write tools, by name: that is how the official harness decides (taxi,
#: cancel and modify are not among them), so ``--vita-deviation outcome=official`` keeps it; everything else asks
#: the tools' declared kinds.
OFFICIAL_WRITES = tuple(_RESOLVE)
CONTAINERS = ("stores", "shops", "hotels", "flights", "trains", "attractions")
#: Stock counts: the judge is shown what was ordered, not what was left.
_STOCK_KEYS = ("quantity",)


def sanitise(value: Any) -> Any:
    """A copy without answer markers and stock counts (``*_type`` markers by name, every hidden field)."""
    if isinstance(value, dict):
        return {k: sanitise(v) for k, v in value.items()
                if not is_marker_key(k) and not is_hidden(k, v) and k not in _STOCK_KEYS}
    if isinstance(value, list):
        return [sanitise(v) for v in value]
    return value


def _tagged_target(entity: Any) -> bool:
    return isinstance(entity, dict) and any(is_marker_key(k) and v == "target" for k, v in entity.items())


def _entities(environment: dict[str, Any], container: str) -> dict[str, dict[str, Any]]:
    raw = environment.get(container) or {}
    if isinstance(raw, list):
        return {str(e.get(container[:-1] + "_id") or i): e for i, e in enumerate(raw) if isinstance(e, dict)}
    return {str(k): v for k, v in raw.items() if isinstance(v, dict)}


def target_entity(environment: dict[str, Any], target_product_ids: list[str] | None = None) -> dict[str, Any] | None:
    """The first entity marked target, sanitised and re-tagged, with its ``target_products``."""
    wanted = {str(p) for p in target_product_ids or []}
    for container in CONTAINERS:
        for entity in _entities(environment, container).values():
            if not _tagged_target(entity):
                continue
            products = [p for p in entity.get("products") or [] if isinstance(p, dict)]
            chosen = [p for p in products if str(p.get("product_id")) in wanted or _tagged_target(p)]
            out = sanitise({k: v for k, v in entity.items() if k != "products"})
            out["shop_type"] = "target"
            out["target_products"] = sanitise(chosen)
            return out
    return None


def resolve_action(name: str, arguments: dict[str, Any] | str, environment: dict[str, Any]) -> dict[str, Any] | None:
    """The chosen entity of one write call, from the raw environment, or ``None`` when it does not resolve."""
    if name not in _RESOLVE or not isinstance(arguments, dict):
        return None
    container, id_arg, product_arg, extras = _RESOLVE[name]
    entities, wanted = _entities(environment, container), str(arguments.get(id_arg, ""))
    entity = entities.get(wanted) or next((e for e in entities.values() if str(e.get(id_arg)) == wanted), None)
    if entity is None:
        return None
    products = [p for p in entity.get("products") or [] if isinstance(p, dict)]
    out = sanitise({k: v for k, v in entity.items() if k != "products"})
    if product_arg is None:  # a reservation or booking: the place and everything it offers
        out["products"] = sanitise(products)
    else:
        raw = arguments.get(product_arg)
        ids = [str(p) for p in raw] if isinstance(raw, list) else [str(raw)]
        matched = [p for p in products if str(p.get("product_id")) in ids]
        if "date" in extras and arguments.get("date"):
            matched = [p for p in matched if str(p.get("date", ""))[:10] == str(arguments["date"])[:10]] or matched
        if not matched:
            return None
        out["ordered_products"] = sanitise(matched)
    extra = {key: arguments[key] for key in extras if key in arguments}
    if extra:
        out["extra"] = extra
    return out


def last_resolved_write(messages: list[Message], environment: dict[str, Any]) -> tuple[int, str, Any, Any] | None:
    """``(message index, tool name, arguments, chosen entity)`` of the last resolvable official write call,
    failed or not; ``None`` when there is none (the caller tells "no write" from "none resolves")."""
    found = None
    for index, message in enumerate(messages):
        if message.role != "assistant":
            continue
        for call in message.tool_calls or []:
            if call.name in OFFICIAL_WRITES:
                chosen = resolve_action(call.name, call.arguments, environment)
                if chosen is not None:
                    found = (index, call.name, call.arguments, chosen)
    return found


def has_official_write(messages: list[Message]) -> bool:
    return any(call.name in OFFICIAL_WRITES for m in messages if m.role == "assistant" for call in m.tool_calls or [])
