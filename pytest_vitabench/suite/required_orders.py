"""VitaBench 1.0 ``required_orders``: what each kind of record really holds, read without guessing.

docs/required-records.md describes the record shapes. A record that cannot be interpreted raises
:class:`UninterpretableOrder` with the reason, so the judge reports it as *not judged* instead of reading
it as some other kind.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import BaseModel, Field

RequiredKind = Literal["delivery", "instore", "hotel", "attraction", "flight", "train", "taxi", "reservation", "book"]
ORDER_KINDS = ("delivery", "instore", "hotel", "attraction", "flight", "train", "taxi")
#: Order kinds whose creating tool in VitaBench 2.0 takes one product per call (``create_instore_product_order``,
#: ``create_hotel_order``, ...): a required order of several products is several orders at its entity.
POOLED_KINDS = ("instore", "hotel", "attraction", "flight", "train", "taxi")
#: 1.0 spellings of order types.
_ORDER_TYPE_ALIASES = {"in-store": "instore", "in_store": "instore", "到店": "instore", "外卖": "delivery",
                       "酒店": "hotel", "景点": "attraction", "门票": "attraction", "机票": "flight", "航班": "flight",
                       "火车": "train", "火车票": "train", "打车": "taxi", "出租车": "taxi"}


class UninterpretableOrder(ValueError):
    """A required order whose kind or fields cannot be read; the message says why."""


class RequiredProduct(BaseModel):
    product_id: str
    quantity: int | None = None
    date: str | None = None
    attributes: str = ""


class RequiredOrder(BaseModel):
    """One record the end state must hold.

    Attributes:
        record_id: The 1.0 id: meaningful only when the initial database holds it (:attr:`existing`).
        dispatch_time: Not judged: the rubrics state the wanted delivery time loosely ("around 12:00").
        status: As written; only ``cancelled`` is judged (the others name stages of a successful order).
        existing: The record names an order of the initial database with the same products: the required
            state is a change to that order (cancel it, change its note), not a new order.
    """

    kind: RequiredKind
    record_id: str = ""
    entity_id: str
    products: list[RequiredProduct] = Field(default_factory=list)
    address: str = ""
    coordinates: tuple[float, float] | None = None
    dispatch_time: str = ""
    time: str = ""
    customer_count: int | None = None
    status: str = ""
    note: str = ""
    existing: bool = False

    def describe(self) -> str:
        article = "an" if self.kind[0] in "aeiou" else "a"
        if self.kind in ("reservation", "book"):
            who = f" for {self.customer_count}" if self.customer_count else ""
            return f"{article} {self.kind} at {self.entity_id}{who} at {self.time or 'any time'}"
        if self.existing:
            return f"the existing {self.kind} order {self.record_id} {self.status or 'kept'}"
        items = ", ".join(f"{p.quantity or 1} x {p.product_id}" + (f" on {p.date}" if p.date else "")
                          for p in self.products)
        return f"{article} {self.kind} order at {self.entity_id} of {items or 'no products'}"


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value if str(v).strip())
    return "" if value is None else str(value).strip()


def _count(value: Any, what: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise UninterpretableOrder(f"{what} {value!r} is not a whole number") from None
    if number != value and str(number) != str(value).strip():
        raise UninterpretableOrder(f"{what} {value!r} is not a whole number")
    return number


def read_required_order(raw: Any, initial_orders: dict[str, Any] | None = None) -> RequiredOrder:
    """Interpret one raw required order (``initial_orders``: the environment's, to recognise changes).

    Raises:
        UninterpretableOrder: Not a record, an unknown ``order_type``, no entity id, an order without
            products, a malformed count.
    """
    if not isinstance(raw, dict):
        raise UninterpretableOrder(f"a required order must be an object, got {type(raw).__name__}")
    if "order_type" not in raw:
        # the id names the kind; the time key only when there is no id (the 1.0 files mix the time keys)
        if raw.get("reservation_id") or (not raw.get("book_id") and "reservation_time" in raw):
            return _visit(raw, "reservation", "reservation_id", "reservation_time")
        if raw.get("book_id") or "book_time" in raw:
            return _visit(raw, "book", "book_id", "book_time")
        raise UninterpretableOrder("no order_type, and neither a reservation (reservation_id, reservation_time) "
                                   f"nor a booking (book_id, book_time); keys: {sorted(raw)}")
    kind = str(raw.get("order_type") or "").strip().lower()
    kind = _ORDER_TYPE_ALIASES.get(kind, kind)
    if kind not in ORDER_KINDS:
        raise UninterpretableOrder(f"unknown order_type {raw.get('order_type')!r}; known: {', '.join(ORDER_KINDS)}")
    entity = _text(raw.get("store_id") or raw.get("shop_id") or raw.get(f"{kind}_id"))
    if not entity:
        raise UninterpretableOrder(f"the {kind} order names no store_id")
    products = []
    for index, line in enumerate(raw.get("products") or []):
        if not isinstance(line, dict) or not _text(line.get("product_id")):
            raise UninterpretableOrder(f"products[{index}] has no product_id")
        products.append(RequiredProduct(
            product_id=_text(line["product_id"]), quantity=_count(line.get("quantity"), f"products[{index}].quantity"),
            date=_text(line.get("date"))[:10] or None, attributes=_text(line.get("attributes"))))
    if not products:
        raise UninterpretableOrder(f"the {kind} order lists no products")
    location = raw.get("location")
    address = _text(location.get("address")) if isinstance(location, dict) else _text(location)
    coordinates = None
    if isinstance(location, dict):
        try:
            coordinates = (float(location["longitude"]), float(location["latitude"]))
        except (KeyError, TypeError, ValueError):
            coordinates = None
    record_id = _text(raw.get("order_id"))
    old = (initial_orders or {}).get(record_id) if record_id else None
    existing = isinstance(old, dict) and sorted(_text(p.get("product_id")) for p in old.get("products") or []
                                                if isinstance(p, dict)) == sorted(p.product_id for p in products)
    return RequiredOrder(kind=cast(RequiredKind, kind), record_id=record_id, entity_id=entity, products=products,
                         address=address if kind == "delivery" else "",
                         coordinates=coordinates if kind == "delivery" else None,
                         dispatch_time=_text(raw.get("dispatch_time")) if kind == "delivery" else "",
                         status=_text(raw.get("status")).lower(), note=_text(raw.get("note")), existing=existing)


def _visit(raw: dict[str, Any], kind: RequiredKind, id_key: str, time_key: str) -> RequiredOrder:
    entity = _text(raw.get("shop_id") or raw.get("store_id"))
    if not entity:
        raise UninterpretableOrder(f"the {kind} names no shop_id")
    # 1.0 files mix the two visit shapes (a reservation_id with a book_time, a book_id with a
    # reservation_time): the record's own time key first, else the other kind's.
    other_key = "book_time" if time_key == "reservation_time" else "reservation_time"
    when = _text(raw.get(time_key)) or _text(raw.get(other_key))
    if not when:
        raise UninterpretableOrder(f"the {kind} has no {time_key} (nor {other_key})")
    return RequiredOrder(kind=kind, record_id=_text(raw.get(id_key)), entity_id=entity, time=when,
                         customer_count=_count(raw.get("customer_count"), "customer_count"),
                         status=_text(raw.get("status")).lower())


def required_orders_of(subtask: Any) -> list[RequiredOrder | UninterpretableOrder]:
    """Every distinct required order of a subtask, interpreted (or the reason it cannot be).

    1.0 files repeat the same orders in every expected state; each distinct record is returned once.
    """
    criteria = getattr(subtask, "evaluation_criteria", None)
    raw_orders = criteria.required_orders() if criteria is not None else []
    initial = (getattr(subtask, "environment", None) or {}).get("orders") or {}
    out: list[RequiredOrder | UninterpretableOrder] = []
    seen: set[str] = set()
    for raw in raw_orders:
        order: RequiredOrder | UninterpretableOrder
        try:
            order = read_required_order(raw, initial)
            key = order.model_dump_json()
        except UninterpretableOrder as exc:
            order, key = exc, f"!{exc}"
        if key not in seen:
            seen.add(key)
            out.append(order)
    return out


def optional_orders_of(subtask: Any) -> list[RequiredOrder | UninterpretableOrder]:
    """The ``optional_orders`` of a subtask, interpreted (or the reason one cannot be): records the end state
    may hold besides the required ones. An uninterpretable one allows nothing; the judge reports it."""
    criteria = getattr(subtask, "evaluation_criteria", None)
    out: list[RequiredOrder | UninterpretableOrder] = []
    for state in (getattr(criteria, "expected_states", None) or []) if criteria is not None else []:
        for raw in state.optional_orders or []:
            try:
                out.append(read_required_order(raw))
            except UninterpretableOrder as exc:
                out.append(exc)
    return out


def visit_kinds(order: RequiredOrder, environment: dict[str, Any]) -> tuple[str, ...]:
    """The record kinds that meet a required reservation or booking (see ``docs/required-records.md``).

    The named kind always does; the other kind too when the shop takes only that one (1.0 data names
    visits loosely, and VitaBench 2.0's tools refuse the kind a shop does not take).
    """
    if order.kind not in ("reservation", "book"):
        return (order.kind,)
    other = "book" if order.kind == "reservation" else "reservation"
    shop = next((s for key, s in (environment.get("shops") or {}).items()
                 if isinstance(s, dict) and order.entity_id in (str(key), str(s.get("shop_id")))), None)
    if shop is None:
        return (order.kind,)
    takes = {"reservation": shop.get("enable_reservation") is True, "book": shop.get("enable_book") is True}
    return (order.kind, other) if takes[other] and not takes[order.kind] else (order.kind,)
