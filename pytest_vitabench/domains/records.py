"""The flat record views of orders, reservations and bookings that the outcome checks and judges read
(the fields of ``suite.checks.RECORD_FIELDS``, plus ``new``: created during this episode)."""

from __future__ import annotations

from typing import Any

from .entities import Order


def _attr_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def order_record(order: Order, *, new: bool) -> dict[str, Any]:
    """The flat record view of an order (fields of ``suite.checks.RECORD_FIELDS`` plus ``new``)."""
    quantities = [p.quantity for p in order.products]
    return {
        "record_type": order.order_type,
        "record_id": order.order_id,
        "entity_id": order.store_id,
        "status": order.status,
        "product_ids": [p.product_id for p in order.products],
        "quantities": quantities,
        "total_quantity": sum(quantities),
        "total_price": order.total_price,
        "create_time": order.create_time,
        "address": order.location.address if order.location else "",
        "dispatch_time": order.dispatch_time or "",
        "delivery_time": order.delivery_time or "",
        "note": order.note,
        "attributes": [_attr_text(p.attributes) for p in order.products],
        "dates": [p.date for p in order.products if p.date],
        "time": None,
        "customer_count": None,
        "new": new,
    }


def reservation_record(reservation: Any, *, new: bool) -> dict[str, Any]:
    """The flat record view of an instore table reservation (``record_type="reservation"``)."""
    return _visit_record(
        "reservation", reservation.reservation_id, reservation, reservation.reservation_time, 0.0, new
    )


def book_record(book: Any, *, new: bool) -> dict[str, Any]:
    """The flat record view of an instore booking (``record_type="book"``)."""
    return _visit_record("book", book.book_id, book, book.book_time, float(book.book_price or 0), new)


def _visit_record(kind: str, record_id: str, item: Any, when: str, price: float, new: bool) -> dict[str, Any]:
    return {
        "record_type": kind,
        "record_id": record_id,
        "entity_id": item.shop_id,
        "status": item.status,
        "product_ids": [],
        "quantities": [],
        "total_quantity": 0,
        "total_price": price,
        "create_time": getattr(item, "create_time", None) or item.update_time,
        "address": "",
        "dispatch_time": "",
        "delivery_time": "",
        "note": "",
        "attributes": [],
        "dates": [when[:10]] if when else [],
        "time": when,
        "customer_count": item.customer_count,
        "new": new,
    }
