"""What the agent sees of travel orders: the booked hotel / attraction / flight / train / taxi with them."""

from __future__ import annotations

from typing import Any

from ..entities import Order
from .models import ORDER_KINDS, Flight, Taxi, Train


def ota_order_view(db: Any, order: Order) -> dict[str, Any]:
    """What the agent sees of an ota order: an allow-list of fields plus the booked entity's name.

    Works on any database holding the ota containers, so a merged multi-domain environment shows ota
    orders the same way.
    """
    view: dict[str, Any] = {
        "order_id": order.order_id,
        "order_type": order.order_type,
        "status": order.status,
    }
    kind = ORDER_KINDS.get(order.order_type)
    if kind is None:  # a non-ota order: the generic leak-free view
        return {**view, **order.view()}
    container, id_field, name_field, _ = kind
    view[id_field] = order.store_id
    entity = (getattr(db, container, None) or {}).get(order.store_id)
    if entity is not None:
        view[name_field] = getattr(entity, name_field)
        if isinstance(entity, (Flight, Train)):
            for name in ("departure_city", "arrival_city", "departure_time", "arrival_time"):
                view[name] = getattr(entity, name)
        elif isinstance(entity, Taxi):
            view["departure_location"] = entity.address("departure")
            view["arrival_location"] = entity.address("arrival")
    view["products"] = [p.view() for p in order.products]
    view["total_price"] = order.total_price
    view["create_time"] = order.create_time
    view["update_time"] = order.update_time
    return view

