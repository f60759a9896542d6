"""The official string forms of records (``--vita-deviation tool-results=official``).

The official tools answer with their records' own ``str``/``repr`` (Python's ``repr`` for lists and numbers
inside), not JSON. These functions re-create those forms from our entities, field by field, so that a model sees
the same text under the official profile. Numbers print as the official pydantic models hold them: prices, scores,
coordinates and shipping times as floats (``31.0``), stock as an integer (0 when the data gives none).
"""

from __future__ import annotations

import json
from typing import Any

from ..domains.entities import Location, Order, catalogue_product, render


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


def order_str(order: Order, products: str | None = None) -> str:
    """An order with its products (``products``: the official text of its product list), or without them as in
    lists: then the delivery fields are left out too, and the official form ends with ``", "`` and no closing
    parenthesis."""
    text = (f"Order(order_id:{order.order_id}, order_type:{order.order_type}, user_id:{order.user_id}, "
            f"{ORDER_ID_LABEL.get(order.order_type, 'store_id')}:{order.store_id}, ")
    delivery = products is not None and order.order_type == "delivery"
    if delivery:
        text += (f"dispatch_time:{order.dispatch_time}, shipping_time:{_shipping(order)}, "
                 f"delivery_time:{order.delivery_time}, ")
    text += (f"total_price:{number(order.total_price)}, create_time:{order.create_time}, "
             f"update_time:{order.update_time}, ")
    if delivery:
        text += f"note:{order.note}, "
    text += f"status:{order.status}, "
    return text if products is None else f"{text}products:{products})"


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


# ---- entities (duck-typed: this module imports no domain, so every domain's tools can use it)


def store_str(store: Any) -> str:
    """A delivery store without its products (search results, nearby)."""
    return (f"Store(name={store.name}, store_id={store.store_id}, score={number(store.score)}, "
            f"location={location(store.location)}, tags={list(store.tags)!r})")


def store_repr(store: Any) -> str:
    # The official form closes the parenthesis before the products.
    products = "\n".join(store_product_repr(p) for p in store.products)
    return f"{store_str(store)}, products={products}"


def store_product_repr(product: Any, quantity: Any = None, attributes: Any = None) -> str:
    return (f"StoreProduct(store_name={product.store_name}, store_id={product.store_id}, "
            f"product_name={product.name}, product_id={product.product_id}, "
            f"attributes={attributes_text(product.attributes if attributes is None else attributes)}, "
            f"quantity={count(product.quantity if quantity is None else quantity)}, "
            f"price={number(product.price)}, tags={list(product.tags)!r})")


def shop_str(shop: Any) -> str:
    """An in-store shop without its products."""
    return (f"Shop(shop_name={shop.shop_name}, shop_id={shop.shop_id}, score={number(shop.score)}, "
            f"location={location(shop.location)}, tags={list(shop.tags)!r}, enable_book={shop.enable_book}, "
            f"book_price={number(shop.book_price)}, enable_reservation={shop.enable_reservation})")


def shop_product_repr(product: Any, quantity: Any = None) -> str:
    shown = product.quantity if quantity is None else quantity
    return (f"ShopProduct(shop_id={product.shop_id}, product_id={product.product_id}, name={product.name}, "
            f"price={number(product.price)}, quantity={count(shown)}, tags={list(product.tags)!r})")


def order_text(db: Any, order: Order) -> str:
    """An order with its products as the official tools print it: a loaded order's products as the data gives
    them, a created one's as catalogue products carrying the ordered quantity (and attributes)."""
    raw = raw_products(order)
    if raw is not None:
        return order_str(order, raw)
    lines = []
    for line in order.products:
        if order.order_type == "delivery" and (p := catalogue_product(db, "stores", line.product_id)) is not None:
            lines.append(store_product_repr(p, quantity=line.quantity, attributes=line.attributes or ""))
        elif order.order_type == "instore" and (p := catalogue_product(db, "shops", line.product_id)) is not None:
            lines.append(shop_product_repr(p, quantity=line.quantity))
        elif order.order_type in OTA_PRODUCT:
            lines.append(ota_product_repr(order.order_type, line))
        else:
            lines.append(repr(line.view()))
    return order_str(order, "[" + ", ".join(lines) + "]")


# ---- travel entities (their locations print as pydantic prints a model: field=repr(value) ...)


def location_str(loc: Any) -> str:
    if loc is None or isinstance(loc, str):
        return str(loc)
    return f"address={loc.address!r} longitude={number(loc.longitude)} latitude={number(loc.latitude)}"


def _int(value: Any) -> str:
    try:
        return str(int(float(value)))
    except (TypeError, ValueError):
        return str(value)


#: Order kind -> (product class name, its type field, the label of its id).
OTA_PRODUCT = {"hotel": ("HotelProduct", "room_type", "room_id"),
               "attraction": ("AttractionProduct", "ticket_type", "attraction_id"),
               "flight": ("FlightProduct", "seat_type", "seat_id"), "train": ("TrainProduct", "seat_type", "seat_id")}


def ota_product_repr(kind: str, product: Any) -> str:
    if kind == "taxi":
        return (f"TaxiProduct(taxi_type={product.taxi_type}, platform={product.platform}, "
                f"price={number(product.price)}, quantity={count(product.quantity)}, product_id={product.product_id})")
    name, type_field, id_label = OTA_PRODUCT[kind]
    return (f"{name}({type_field}={getattr(product, type_field)}, date={product.date}, price={number(product.price)}, "
            f"quantity={count(product.quantity)}, {id_label}={product.product_id})")


def ota_str(kind: str, item: Any) -> str:
    """A travel entity without its products (search results)."""
    if kind == "hotel":
        return (f"Hotel(hotel_id={item.hotel_id}, hotel_name={item.hotel_name}, score={number(item.score)}, "
                f"star_rating={_int(item.star_rating)}, location={location_str(item.location)}, "
                f"tags={list(item.tags)!r})")
    if kind == "attraction":  # the official form ends with ", " and no parenthesis
        return (f"Attraction(attraction_id={item.attraction_id}, attraction_name={item.attraction_name}, "
                f"location={location_str(item.location)}, description={item.description}, "
                f"score={number(item.score)}, opening_hours={item.opening_hours}, ")
    if kind in ("flight", "train"):
        place = "airport" if kind == "flight" else "station"
        return (f"{kind.capitalize()}({kind}_id={getattr(item, kind + '_id')}, "
                f"{kind}_number={getattr(item, kind + '_number')}, departure_city={item.departure_city}, "
                f"arrival_city={item.arrival_city}, "
                f"departure_{place}_location={location_str(getattr(item, f'departure_{place}_location'))}, "
                f"arrival_{place}_location={location_str(getattr(item, f'arrival_{place}_location'))}, "
                f"departure_time={item.departure_time}, arrival_time={item.arrival_time}, tags={list(item.tags)!r})")
    return (f"Taxi(taxi_id={item.taxi_id}, taxi_type={item.taxi_type}, platform={item.platform}, "
            f"departure_location={location_str(item.departure_location)}, "
            f"arrival_location={location_str(item.arrival_location)}, estimated_duration={item.estimated_duration}, "
            f"estimated_price={number(item.estimated_price)}, tags={list(item.tags)!r})")


def ota_repr(kind: str, item: Any) -> str:
    """A travel entity with its products (the info tools)."""
    products = "\n".join(ota_product_repr(kind, p) for p in item.products)
    if kind == "attraction":
        return (f"{ota_str(kind, item)}ticket_price={number(item.ticket_price)}, products={products})")
    return f"{ota_str(kind, item)[:-1]}, products={products})"
