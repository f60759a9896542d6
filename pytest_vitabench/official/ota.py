"""The travel tools as the official harness runs them (``--vita-deviation tool-results=official``).

As :mod:`..delivery.official`: each method is one official tool (or one family of them, by order kind), its
checks in their order, its state changes (stock taken and given back) and its answer text; a failed ``assert``
answers as plain text, a failed lookup as ``"Error: ..."``. Kept from ours: generated ids; a hotel order for a
room the hotel lacks is refused (the official tool creates an empty order at price 0, a bug listed in
fixed in both profiles); the taxi search lists no taxi when none matches (the official one lists every taxi).
"""

from __future__ import annotations

from functools import partialmethod
from typing import Any

from ..domains.base import ToolError
from ..domains.entities import Order, OrderProduct
from ..domains.ota.models import KINDS, ORDER_KINDS
from . import record_text as text
from .messages import message
from .shared_tools import OfficialTools, valid_date

_DATED = ("attraction", "flight", "train", "taxi")

# The official tools are one function per kind: each kind's keys name its own function.
_FILE = "ota"
NOT_FOUND = {kind: message(_FILE, f"_get_{kind}", f"{kind}_id") for kind in KINDS}
ORDER_NOT_FOUND = message(_FILE, "_get_ota_order", "order_id")
_INFO_TOOL = {kind: "get_taxi_info" if kind == "taxi" else f"get_ota_{kind}_info" for kind in KINDS}
INFO_NO_ID = {kind: message(_FILE, tool) for kind, tool in _INFO_TOOL.items()}
INFO = {kind: message(_FILE, tool, f"repr({kind})") for kind, tool in _INFO_TOOL.items()}
INFO_ERROR = {kind: message(_FILE, tool, "e") for kind, tool in _INFO_TOOL.items()}
#: The search tools: (the first argument empty, the second empty) where they check, and none found.
_SEARCH_TOOL = {"hotel": "hotel_search_recommand", "attraction": "attractions_search_recommend",
                "flight": "flight_search_recommend", "train": "train_ticket_search", "taxi": "taxi_search"}
SEARCH_EMPTY = {kind: (message(_FILE, _SEARCH_TOOL[kind]), message(_FILE, _SEARCH_TOOL[kind], nth=1))
                for kind in ("flight", "train", "taxi")}
NONE_FOUND = {kind: message(_FILE, tool, nth={"flight": 2, "train": 4, "taxi": 2}.get(kind, 0))
              for kind, tool in _SEARCH_TOOL.items()}
TRAIN_NO_DATE = message(_FILE, "train_ticket_search", nth=2)
TRAIN_BAD_DATE = message(_FILE, "train_ticket_search", nth=3)
#: create_<kind>_order (not hotel), in the official order: no entity id, no product id, no user id, a quantity
#: below 1, another user, no such product, too few left.
CREATE = {kind: tuple(message(_FILE, f"create_{kind}_order", nth=n) for n in range(7)) for kind in _DATED}
#: create_hotel_order: no hotel id, no user id, another user, no room left.
CREATE_HOTEL = tuple(message(_FILE, "create_hotel_order", nth=n) for n in range(4))
#: pay_<kind>_order: no order id, not unpaid, paid.
PAY = {kind: tuple(message(_FILE, f"pay_{kind}_order", nth=n) for n in range(3)) for kind in KINDS}
#: search_<kind>_order: no user id, another user.
SEARCH_USER = {kind: (message(_FILE, f"search_{kind}_order"), message(_FILE, f"search_{kind}_order", nth=1))
               for kind in KINDS}
HOTEL_NO_RECORDS = message(_FILE, "search_hotel_order", nth=2)
SEARCH_BAD_DATE = {kind: message(_FILE, f"search_{kind}_order", nth=3 if kind == "hotel" else 2)
                   for kind in KINDS if kind != "taxi"}
#: get_<kind>_order_detail: no order id, another kind.
DETAIL = {kind: (message(_FILE, f"get_{kind}_order_detail"), message(_FILE, f"get_{kind}_order_detail", nth=1))
          for kind in KINDS}
#: cancel_<kind>_order: no order id, no user id, another user, another kind, already cancelled; cancelled.
CANCEL = {kind: tuple(message(_FILE, f"cancel_{kind}_order", nth=n) for n in range(5)) for kind in KINDS}
CANCELLED = {kind: message(_FILE, f"cancel_{kind}_order", "refund") for kind in KINDS}


class _Modify:
    """The messages of modify_<kind>_order (flight and train say some of them differently)."""

    def __init__(self, kind: str) -> None:
        tool = f"modify_{kind}_order"
        train = kind == "train"
        self.no_order_id, self.no_user_id, self.no_date = (message(_FILE, tool, nth=n) for n in range(3))
        self.other_user = message(_FILE, tool, nth=3 if train else 4)
        self.bad_date = message(_FILE, tool, nth=4 if train else 3)
        self.other_kind = message(_FILE, tool, nth=6 if train else 5)
        self.not_theirs = message(_FILE, tool, "order_id", "user_id") if train else message(_FILE, tool, "user_id")
        self.not_paid = message(_FILE, tool, "order.status") if train else message(_FILE, tool, nth=6)
        self.several = message(_FILE, tool, nth=7)
        self.no_seats = message(_FILE, tool, "new_date", "seat_type")
        self.too_few = message(_FILE, tool, "seat_type", "new_date")
        self.to_pay = message(_FILE, tool, "diff")
        self.refunded = message(_FILE, tool, "diff", nth=1)


MODIFY = {kind: _Modify(kind) for kind in ("flight", "train")}


class OfficialOta(OfficialTools):
    """The official behaviour of each travel tool, over our environment and database."""

    def entity(self, kind: str, entity_id: str) -> Any:
        return self.keyed(getattr(self.db, ORDER_KINDS[kind][0]), entity_id, NOT_FOUND[kind])

    def order(self, order_id: str) -> Order:
        return self.keyed(self.db.orders, order_id, ORDER_NOT_FOUND)

    # ---- info and search

    def info(self, kind: str, entity_id: str) -> str:
        if not entity_id:
            return self.say(INFO_NO_ID[kind])
        try:
            found = self.entity(kind, entity_id)
        except ToolError as exc:  # the official info tools catch the lookup themselves: plain text
            return self.say(INFO_ERROR[kind], exc)
        return self.say(INFO[kind], text.ota_repr(kind, found))

    def listing(self, kind: str, found: list[Any]) -> str:
        return "\n".join(text.ota_str(kind, item) for item in found) if found else self.say(NONE_FOUND[kind])

    def missing_places(self, kind: str, departure: str, arrival: str) -> str | None:
        """The official search's answer when a place is empty (flights, trains, taxis), else ``None``."""
        first, second = SEARCH_EMPTY[kind]
        if not departure:
            return self.say(first)
        return None if arrival else self.say(second)

    def trains_on(self, trains: list[Any], date: str) -> str:
        if not date:
            return self.say(TRAIN_NO_DATE)
        if not valid_date(date):
            return self.say(TRAIN_BAD_DATE)
        # The official search lists a train once per offer on that date.
        found = [train for train in trains for product in train.products if product.date == date]
        return self.listing("train", found)

    # The info tools are one official function per kind, each taking the entity id.
    get_ota_hotel_info = partialmethod(info, "hotel")
    get_ota_attraction_info = partialmethod(info, "attraction")
    get_ota_flight_info = partialmethod(info, "flight")
    get_ota_train_info = partialmethod(info, "train")
    get_taxi_info = partialmethod(info, "taxi")

    def search_taxi_order(self, user_id: str, status: str | None) -> str:
        return self.search_orders("taxi", user_id, None, status)

    # ---- create

    def create(self, kind: str, entity_id: str, product_id: str, user_id: str, date: str | None,
               quantity: Any) -> str:
        no_entity, no_product, no_user, bad_quantity, other_user, no_such, too_few = CREATE[kind]
        if not entity_id:
            return self.say(no_entity)
        if not product_id:
            return self.say(no_product)
        if not user_id:
            return self.say(no_user)
        if not quantity > 0:
            return self.say(bad_quantity)
        if user_id != self.db.user_id:
            return self.say(other_user)
        found = self.entity(kind, entity_id)
        target = next((p for p in found.products if p.product_id == product_id
                       and (kind == "taxi" or p.date == date)), None)
        if target is None:
            return self.say(no_such)
        if (target.quantity or 0) < quantity:
            return self.say(too_few)
        target.quantity = (target.quantity or 0) - quantity
        return self._created(kind, entity_id, user_id, target, quantity, date)

    create_attraction_order = partialmethod(create, "attraction")
    create_flight_order = partialmethod(create, "flight")
    create_train_order = partialmethod(create, "train")

    def create_taxi_order(self, taxi_id: str, product_id: str, user_id: str, quantity: Any) -> str:
        return self.create("taxi", taxi_id, product_id, user_id, None, quantity)

    def create_hotel_order(self, hotel_id: str, room_id: str, user_id: str) -> str:
        no_hotel, no_user, other_user, no_room = CREATE_HOTEL
        if not hotel_id:
            return self.say(no_hotel)
        if problem := self.user_problem(user_id, (no_user, other_user)):
            return problem
        hotel = self.entity("hotel", hotel_id)
        room = next((p for p in hotel.products if p.product_id == room_id), None)
        if room is None:  # ours: the official tool books an empty order at price 0 (fixed in both profiles)
            raise ToolError(f"Room {room_id} not found in hotel {hotel_id}")
        if (room.quantity or 0) <= 0:
            return self.say(no_room)
        room.quantity = (room.quantity or 0) - 1
        return self._created("hotel", hotel_id, user_id, room, 1, room.date)

    def _created(self, kind: str, entity_id: str, user_id: str, product: Any, quantity: int, date: str | None
                 ) -> str:
        line = OrderProduct(product_id=product.product_id, price=product.price, quantity=quantity,
                            date=None if kind == "taxi" else date, room_type=getattr(product, "room_type", None),
                            ticket_type=getattr(product, "ticket_type", None),
                            seat_type=getattr(product, "seat_type", None),
                            taxi_type=getattr(product, "taxi_type", None), platform=getattr(product, "platform", None))
        now = self.env.now_text()
        created = Order(order_id=self.env.new_id(f"O{kind[0].upper()}"), order_type=kind, user_id=user_id,
                        store_id=entity_id, total_price=product.price * quantity, update_time=now, create_time=now,
                        status="unpaid", products=[line])
        self.db.orders[created.order_id] = created
        return self.order_repr(created)

    # ---- pay, search, detail, modify, cancel

    def pay_order(self, kind: str, order_id: str) -> str:
        no_order, not_unpaid, paid = PAY[kind]
        if not order_id:
            return self.say(no_order)
        target = self.order(order_id)
        if target.status != "unpaid":
            return self.say(not_unpaid)
        target.status, target.update_time = "paid", self.env.now_text()
        return self.say(paid)

    def search_orders(self, kind: str, user_id: str, date: str | None, status: str | None) -> str:
        if problem := self.user_problem(user_id, SEARCH_USER[kind]):
            return problem
        of_kind = [o for o in self.db.orders.values() if o.order_type == kind]
        if kind == "hotel" and not any(o.user_id == user_id for o in of_kind):
            raise ToolError(self.say(HOTEL_NO_RECORDS))
        if date and not valid_date(date):  # the taxi search takes no date
            return self.say(SEARCH_BAD_DATE[kind])
        found = []
        for order in of_kind:
            if order.user_id != user_id or (status and order.status != status):
                continue
            # A loaded order's products are plain dicts, which have no date attribute: never a date match.
            if date and (order.raw_products is not None or not any(p.date == date for p in order.products)):
                continue
            found.append(order)
        return "\n".join(text.order_str(o) for o in found)

    search_dated_orders = search_orders

    def order_detail(self, kind: str, order_id: str) -> str:
        no_order, other_kind = DETAIL[kind]
        if not order_id:
            return self.say(no_order)
        target = self.order(order_id)
        if target.order_type != kind:
            return self.say(other_kind)
        return self.order_repr(target)

    def modify_order(self, kind: str, order_id: str, user_id: str, new_date: str) -> str:
        says = MODIFY[kind]
        for value, empty in ((order_id, says.no_order_id), (user_id, says.no_user_id), (new_date, says.no_date)):
            if not value:
                return self.say(empty)
        checks = [lambda: None if user_id == self.db.user_id else self.say(says.other_user),
                  lambda: None if valid_date(new_date) else self.say(says.bad_date)]
        for check in checks if kind == "train" else reversed(checks):  # the two tools check in other orders
            if (problem := check()) is not None:
                return problem
        target = self.order(order_id)
        if target.order_type != kind:
            return self.say(says.other_kind)
        if target.user_id != user_id:
            return self.say(says.not_theirs, order_id, user_id) if kind == "train" else \
                self.say(says.not_theirs, user_id)
        if target.status != "paid":
            return self.say(says.not_paid, target.status) if kind == "train" else self.say(says.not_paid)
        if len(target.products) != 1:
            return self.say(says.several)
        old = target.products[0]
        raw = (target.raw_products or [None])[0]
        # A loaded order's product is the data's dict, read as the official tool reads it.
        seat_type: Any = raw.get("seat_type") if isinstance(raw, dict) else old.seat_type
        quantity: Any = raw.get("quantity") if isinstance(raw, dict) else old.quantity
        old_date: Any = raw.get("date") if isinstance(raw, dict) else old.date
        old_price: Any = raw.get("price") if isinstance(raw, dict) else old.price
        found = self.entity(kind, target.store_id)
        new = next((p for p in found.products if p.date == new_date and p.seat_type == seat_type), None)
        if new is None:
            return self.say(says.no_seats, new_date, seat_type)
        if (new.quantity or 0) < quantity:
            return self.say(says.too_few, seat_type, new_date)
        back = next((p for p in found.products if p.date == old_date and p.seat_type == seat_type), None)
        if back is not None:
            back.quantity = (back.quantity or 0) + quantity
        new.quantity = (new.quantity or 0) - quantity
        new_total = new.price * quantity
        diff = new_total - old_price * quantity
        if diff > 0:
            target.status = "unpaid"
        target.replace_products([OrderProduct(product_id=new.product_id, price=new.price, date=new_date,
                                              seat_type=seat_type, quantity=quantity)])
        target.total_price, target.update_time = new_total, self.env.now_text()
        return self.say(says.to_pay if diff > 0 else says.refunded, diff)

    def cancel_order(self, kind: str, order_id: str, user_id: str) -> str:
        no_order, no_user, other_user, other_kind, already = CANCEL[kind]
        if not order_id:
            return self.say(no_order)
        if problem := self.user_problem(user_id, (no_user, other_user)):
            return problem
        target = self.order(order_id)
        if target.order_type != kind:
            return self.say(other_kind)
        if target.status == "cancelled":
            return self.say(already)
        refund: Any = target.total_price if target.status == "paid" else 0
        target.status, target.update_time = "cancelled", self.env.now_text()
        return self.say(CANCELLED[kind], refund)
