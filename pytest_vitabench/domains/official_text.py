"""The official string forms of records (``--vita-tool-results official``).

The official tools answer with their records' own ``str``/``repr`` (Python's ``repr`` for lists and numbers
inside), not JSON. These functions re-create those forms from our entities, field by field, so that a model sees
the same text under the official profile. Numbers print as the official pydantic models hold them: prices, scores,
coordinates and shipping times as floats (``31.0``), stock as an integer (0 when the data gives none).
"""

from __future__ import annotations

import json
from typing import Any

from .entities import Location, Order, render


def number(value: Any) -> str:
    """A float field as the official models print it (an int or a numeric string becomes a float)."""
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return str(value)


def json_number(value: float) -> str:
    """A number a tool returns, as the official environment answers it: its text, JSON-encoded (``"33.0"``)."""
    return json.dumps(str(float(value)))


def count(value: Any) -> str:
    """An optional integer field (stock, quantity): the official default is 0."""
    return "0" if value is None else str(value)


def attributes_text(value: Any) -> str:
    """Product attributes: the official model joins a list with ", "."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def location(loc: Location | None) -> str:
    if loc is None:
        return "None"
    return f"{loc.address} longitude:{number(loc.longitude)},latitude:{number(loc.latitude)}"


#: The entity-id label of an order's ``store_id`` per order type.
ORDER_ID_LABEL = {"delivery": "store_id", "instore": "shop_id", "hotel": "hotel_id", "attraction": "attraction_id",
                  "flight": "flight_id", "train": "train_id"}


def order_str(order: Order) -> str:
    """An order as in lists (the official form ends with ``", "`` and no closing parenthesis)."""
    return (f"Order(order_id:{order.order_id}, order_type:{order.order_type}, user_id:{order.user_id}, "
            f"{ORDER_ID_LABEL.get(order.order_type, 'store_id')}:{order.store_id}, "
            f"total_price:{number(order.total_price)}, create_time:{order.create_time}, "
            f"update_time:{order.update_time}, status:{order.status}, ")


def order_repr(order: Order, products: str) -> str:
    """An order with its products (``products``: the official text of the product list)."""
    head = (f"Order(order_id:{order.order_id}, order_type:{order.order_type}, user_id:{order.user_id}, "
            f"{ORDER_ID_LABEL.get(order.order_type, 'store_id')}:{order.store_id}, ")
    if order.order_type == "delivery":
        head += (f"dispatch_time:{order.dispatch_time}, shipping_time:{_shipping(order)}, "
                 f"delivery_time:{order.delivery_time}, ")
    tail = (f"total_price:{number(order.total_price)}, create_time:{order.create_time}, "
            f"update_time:{order.update_time}, ")
    if order.order_type == "delivery":
        tail += f"note:{order.note}, "
    return f"{head}{tail}status:{order.status}, products:{products})"


def _shipping(order: Order) -> str:
    # The official field defaults to 0.0 when the data leaves it out, and keeps an explicit null.
    if order.shipping_time is None:
        return "None" if "shipping_time" in order.model_fields_set else "0.0"
    return number(order.shipping_time)


def raw_products(order: Order) -> str | None:
    """The product list of an order loaded from the data, as the official model keeps it (plain dicts), or
    ``None`` for an order created during the episode."""
    raw = order.raw_products
    return None if raw is None else repr(render(raw))  # hidden keys dropped, as everywhere
