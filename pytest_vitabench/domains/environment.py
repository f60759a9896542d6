"""The environment every domain's tools act on: its database, clock, record ids, entities and views."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from .base import Environment, ToolError
from .clock import format_time, parse_time
from .entities import Entity, Location, Order, model_values
from .geo import geocode
from .records import book_record, order_record, reservation_record

#: Containers of entities with a location, in the order ``get_nearby`` lists them.
NEARBY_CONTAINERS = ("stores", "shops", "hotels", "attractions", "flights", "trains")
#: Record containers (never searched as entities).
RECORD_CONTAINERS = ("orders", "reservations", "books")


@dataclass
class DomainEnvironment(Environment):
    """An environment over a validated domain database.

    Attributes:
        db: The episode's own (deep-copied) database.
        seed: The trial seed; new record ids derive from it.
        language: ``en`` or ``zh``; only affects a few generated strings (holiday names).
        initial_ids: Ids of records present before the episode, so :meth:`records` can mark ``new``.
    """

    db: Any = None
    seed: int = 0
    language: str = "en"
    initial_ids: set[str] = field(default_factory=set)
    #: Per order type, how a domain shows its own orders (``view(db, order)``); the key ``None`` stands for
    #: every order type (a single-domain environment whose domain shows all orders its way).
    order_views: dict[str | None, Callable[[Any, Order], dict[str, Any]]] = field(default_factory=dict)
    _counter: int = 0

    def __post_init__(self) -> None:
        if self.db is not None and not self.initial_ids:
            self.initial_ids = set(self._record_ids())

    # ---- clock and ids

    def now(self) -> datetime:
        """The simulated current time (``db.time``)."""
        return parse_time(self.db.time, "environment time")

    def now_text(self) -> str:
        return format_time(self.now())

    def new_id(self, prefix: str) -> str:
        """A fresh, deterministic record id: prefix + 10 hex of sha256(seed:counter), unique in this db."""
        taken = set(self._record_ids())
        while True:
            self._counter += 1
            rid = prefix + hashlib.sha256(f"{self.seed}:{self._counter}".encode()).hexdigest()[:10].upper()
            if rid not in taken:
                return rid

    def touch(self, record: Any, status: str | None = None) -> None:
        """Set a record's ``status`` (when given) and its ``update_time`` to now."""
        if status is not None:
            record.status = status
        record.update_time = self.now_text()

    def pay(self, record: Any, what: str, key: str) -> dict[str, Any]:
        """Pay an unpaid order or booking (``what`` names it to the agent, ``key`` is its id field)."""
        if record.status != "unpaid":
            raise ToolError(f"{what} {getattr(record, key)} cannot be paid: its status is {record.status!r}, "
                            "not 'unpaid'")
        self.touch(record, "paid")
        return {key: getattr(record, key), "status": record.status, "message": "Payment successful"}

    def cancel(self, record: Any, what: str, key: str, final: tuple[str, ...]) -> dict[str, Any]:
        """Cancel an order, booking or reservation (named as for :meth:`pay`) that is not finished.

        VitaBench 2.0's tools refuse only to cancel a cancelled record; refusing one in another ``final`` status
        is our ``finished_orders`` check.
        """
        if record.status in final and (record.status == "cancelled" or self.checking("finished_orders")):
            raise ToolError(f"{what} {getattr(record, key)} cannot be cancelled: its status is {record.status!r}")
        self.touch(record, "cancelled")
        return {key: getattr(record, key), "status": record.status, "message": f"{what} cancelled"}

    def check_user(self, user_id: str) -> None:
        """Refuse (as a counted error) a user id other than the environment's."""
        if str(user_id).strip() != str(self.db.user_id).strip():
            raise ToolError("User ID does not match")

    # ---- entities

    def containers(self, names: Iterable[str] | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(name, {id: entity})`` for each entity container present in the db."""
        fields = type(self.db).model_fields
        for name in names if names is not None else fields:
            if name in fields and name not in RECORD_CONTAINERS:
                value = getattr(self.db, name, None)
                if isinstance(value, dict):
                    yield name, value

    def find_entity(self, entity_id: str) -> Entity | None:
        containers = list(self.containers(NEARBY_CONTAINERS + ("taxis",)))
        for _, items in containers:
            if entity_id in items:
                return items[entity_id]
        # VitaBench 2.0 data occasionally keys an entity differently from its own id field.
        for name, items in containers:
            for entity in items.values():
                if getattr(entity, f"{name[:-1]}_id", None) == entity_id:
                    return entity
        return None

    def entity(self, container: str, entity_id: str, what: str) -> Any:
        """The entity of ``container`` (``stores``, ``shops``) keyed ``entity_id``, or whose own id field
        (``store_id``, ``shop_id``) it is: a few entities of the VitaBench 2.0 data are keyed otherwise.
        ToolError if none."""
        key = str(entity_id).strip()
        items = getattr(self.db, container)
        found = items.get(key) or next((e for e in items.values() if getattr(e, f"{container[:-1]}_id") == key), None)
        if found is None:
            raise ToolError(f"{what} {entity_id!r} not found")
        return found

    def entity_name(self, entity_id: str) -> str | None:
        entity = self.find_entity(entity_id)
        if entity is None:
            return None
        for attr in ("name", "shop_name", "hotel_name", "attraction_name", "flight_number", "train_number"):
            value = getattr(entity, attr, None)
            if value:
                return str(value)
        return None

    def locations(self) -> list[Location]:
        """Every location known to THIS environment: ``location`` entries, entity and order locations."""
        found: list[Location] = list(self.db.location)
        for _, items in self.containers():
            for entity in items.values():
                if isinstance(entity, BaseModel):
                    found.extend(v for v in model_values(entity) if isinstance(v, Location))
        for order in self.db.orders.values():
            if order.location is not None:
                found.append(order.location)
        return found

    def geocode(self, address: str) -> Location:
        """The best fuzzy match of ``address`` among this environment's locations; ToolError if none."""
        return geocode(address, self.locations())

    # ---- records

    def _record_ids(self) -> Iterator[str]:
        yield from (order.order_id for order in self.db.orders.values())
        for name in ("reservations", "books"):
            yield from getattr(self.db, name, None) or {}

    def records(self) -> list[dict[str, Any]]:
        out = [order_record(o, new=o.order_id not in self.initial_ids) for o in self.db.orders.values()]
        for res in (getattr(self.db, "reservations", None) or {}).values():
            out.append(reservation_record(res, new=res.reservation_id not in self.initial_ids))
        for book in (getattr(self.db, "books", None) or {}).values():
            out.append(book_record(book, new=book.book_id not in self.initial_ids))
        return out

    # ---- views

    def order_view(self, order: Order) -> dict[str, Any]:
        """What the agent sees of an order: visible fields plus the store/shop/hotel name."""
        special = self.order_views.get(order.order_type) or self.order_views.get(None)
        if special is not None:
            return special(self.db, order)
        view = order.view()
        name = self.entity_name(order.store_id)
        if name:
            view = {"order_id": view.pop("order_id"), "store_name": name, **view}
        return view

    def get_order(self, order_id: str, order_type: str | Sequence[str] | None = None) -> Order:
        """The order with this id (of the given type(s)); ToolError otherwise."""
        order = self.db.orders.get(str(order_id).strip())
        types = (order_type,) if isinstance(order_type, str) else order_type
        if order is None or (types and order.order_type not in types):
            raise ToolError(f"Order {order_id!r} not found")
        return order
