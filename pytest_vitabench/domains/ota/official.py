"""The travel tools as the official harness runs them (``--vita-tool-results official``).

As :mod:`..delivery.official`: each method is one official tool (or one family of them, by order kind), its
checks in their order, its state changes (stock taken and given back) and its answer text; a failed ``assert``
answers as plain text, a failed lookup as ``"Error: ..."``. Kept from ours: generated ids; a hotel order for a
room the hotel does not have is refused (the official tool creates an empty order at price 0, a bug listed in
REFERENCE.md §7); the taxi search lists no taxi when none matches (the official one lists every taxi).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import official_text as text
from ..base import ToolError
from ..entities import Order, OrderProduct

if TYPE_CHECKING:
    from ..environment import DomainEnvironment

#: Order kind -> (database container, the official lookup's word, the detail tool's article + noun).
KINDS = {"hotel": ("hotels", "hotel", "a hotel"), "attraction": ("attractions", "attraction", "an attraction"),
         "flight": ("flights", "flight", "a flight"), "train": ("trains", "train", "a train"),
         "taxi": ("taxis", "taxi", "a taxi")}
_PRODUCT_WORD = {"attraction": "ticket", "flight": "seat", "train": "seat"}


def _valid_date(value: Any) -> bool:
    try:
        datetime.strptime(str(value), "%Y-%m-%d")
    except ValueError:
        return False
    return True


class OfficialOta:
    """The official behaviour of each travel tool, over our environment and database."""

    def __init__(self, env: DomainEnvironment) -> None:
        self.env = env

    @property
    def db(self) -> Any:
        return self.env.db

    def _user_problem(self, user_id: str) -> str | None:
        if not user_id:
            return "User ID cannot be empty"
        if user_id != self.db.user_id:
            return "User ID does not match"
        return None

    def entity(self, kind: str, entity_id: str) -> Any:
        container, word, _ = KINDS[kind]
        items = getattr(self.db, container)
        if entity_id not in items:
            raise ToolError(f"{word} {entity_id} not found")
        return items[entity_id]

    def order(self, order_id: str) -> Order:
        if order_id not in self.db.orders:
            raise ToolError(f"Order {order_id} not found")
        return self.db.orders[order_id]

    # ---- info and search

    def info(self, kind: str, entity_id: str, title: str) -> str:
        if not entity_id:
            return f"{title} ID cannot be empty"
        try:
            found = self.entity(kind, entity_id)
        except ToolError as exc:  # the official info tools catch the lookup themselves: plain text
            return f"Error: {exc}"
        return f"{title} Info:\n{text.ota_repr(kind, found)}"

    def listing(self, kind: str, found: list[Any], none: str) -> str:
        return "\n".join(text.ota_str(kind, item) for item in found) if found else none

    def trains_on(self, trains: list[Any], date: str) -> str:
        if not date:
            return "Departure date cannot be empty"
        if not _valid_date(date):
            return "Date format is incorrect, correct format is %Y-%m-%d"
        # The official search lists a train once per offer on that date.
        found = [train for train in trains for product in train.products if product.date == date]
        return self.listing("train", found, "No trains found matching the criteria")

    def get_ota_hotel_info(self, hotel_id: str) -> str:
        return self.info("hotel", hotel_id, "Hotel")

    def get_ota_attraction_info(self, attraction_id: str) -> str:
        return self.info("attraction", attraction_id, "Attraction")

    def get_ota_flight_info(self, flight_id: str) -> str:
        return self.info("flight", flight_id, "Flight")

    def get_ota_train_info(self, train_id: str) -> str:
        return self.info("train", train_id, "Train")

    def get_taxi_info(self, taxi_id: str) -> str:
        return self.info("taxi", taxi_id, "Taxi")

    def search_dated_orders(self, kind: str, user_id: str, date: str | None, status: str | None) -> str:
        return self.search_orders(kind, user_id, date, status)

    def search_taxi_order(self, user_id: str, status: str | None) -> str:
        return self.search_orders("taxi", user_id, None, status)

    # ---- create

    def create(self, kind: str, entity_id: str, product_id: str, user_id: str, date: str | None,
               quantity: Any) -> str:
        word = _PRODUCT_WORD.get(kind, "product")
        title = {"attraction": "Attraction", "flight": "Flight", "train": "Train", "taxi": "Taxi"}[kind]
        if not entity_id:
            return f"{title} ID cannot be empty"
        if not product_id:
            return f"{word.capitalize() if kind != 'taxi' else 'Product'} ID cannot be empty"
        problem = "User ID cannot be empty" if not user_id else None
        if problem:
            return problem
        if not quantity > 0:
            return "Booking quantity must be greater than 0"
        if user_id != self.db.user_id:
            return "User ID does not match"
        found = self.entity(kind, entity_id)
        target = next((p for p in found.products if p.product_id == product_id
                       and (kind == "taxi" or p.date == date)), None)
        if target is None:
            return ("The taxi service does not have the specified product" if kind == "taxi" else
                    f"The {kind} does not have the specified {word} on the specified date")
        if (target.quantity or 0) < quantity:
            return ("Insufficient taxi service availability" if kind == "taxi" else
                    f"Insufficient {word} inventory for the specified date")
        target.quantity = (target.quantity or 0) - quantity
        return self._created(kind, entity_id, user_id, target, quantity, date)

    def create_attraction_order(self, attraction_id: str, ticket_id: str, user_id: str, date: str, quantity: Any
                                ) -> str:
        return self.create("attraction", attraction_id, ticket_id, user_id, date, quantity)

    def create_flight_order(self, flight_id: str, seat_id: str, user_id: str, date: str, quantity: Any) -> str:
        return self.create("flight", flight_id, seat_id, user_id, date, quantity)

    def create_train_order(self, train_id: str, seat_id: str, user_id: str, date: str, quantity: Any) -> str:
        return self.create("train", train_id, seat_id, user_id, date, quantity)

    def create_taxi_order(self, taxi_id: str, product_id: str, user_id: str, quantity: Any) -> str:
        return self.create("taxi", taxi_id, product_id, user_id, None, quantity)

    def create_hotel_order(self, hotel_id: str, room_id: str, user_id: str) -> str:
        if not hotel_id:
            return "Hotel ID cannot be empty"
        problem = self._user_problem(user_id)
        if problem:
            return problem
        hotel = self.entity("hotel", hotel_id)
        room = next((p for p in hotel.products if p.product_id == room_id), None)
        if room is None:
            raise ToolError(f"Room {room_id} not found in hotel {hotel_id}")
        if (room.quantity or 0) <= 0:
            return "No available rooms at the moment"
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
        return text.order_text(self.db, created)

    # ---- pay, search, detail, modify, cancel

    def pay_order(self, kind: str, order_id: str) -> str:
        if not order_id:
            return "Order ID cannot be empty"
        target = self.order(order_id)
        if target.status != "unpaid":
            return "Order status must be unpaid"
        target.status, target.update_time = "paid", self.env.now_text()
        return "Payment successful"

    def search_orders(self, kind: str, user_id: str, date: str | None, status: str | None) -> str:
        problem = self._user_problem(user_id)
        if problem:
            return problem
        of_kind = [o for o in self.db.orders.values() if o.order_type == kind]
        if kind == "hotel" and not any(o.user_id == user_id for o in of_kind):
            raise ToolError("User does not exist or has no order records")
        if date and not _valid_date(date):
            return "Date format is incorrect, correct format is %Y-%m-%d"
        found = []
        for order in of_kind:
            if order.user_id != user_id or (status and order.status != status):
                continue
            # A loaded order's products are plain dicts, which have no date attribute: never a date match.
            if date and (order.raw_products is not None or not any(p.date == date for p in order.products)):
                continue
            found.append(order)
        return "\n".join(text.order_str(o) for o in found)

    def order_detail(self, kind: str, order_id: str) -> str:
        if not order_id:
            return "Order ID cannot be empty"
        target = self.order(order_id)
        if target.order_type != kind:
            return f"Order type is not {KINDS[kind][2]} order"
        return text.order_text(self.db, target)

    def modify_order(self, kind: str, order_id: str, user_id: str, new_date: str) -> str:
        for value, message in ((order_id, "Order ID cannot be empty"), (user_id, "User ID cannot be empty"),
                               (new_date, "New departure date cannot be empty")):
            if not value:
                return message
        checks = [lambda: None if user_id == self.db.user_id else "User ID does not match",
                  lambda: None if _valid_date(new_date) else "Date format is incorrect, correct format is %Y-%m-%d"]
        for check in checks if kind == "train" else reversed(checks):  # the two tools check in other orders
            if (problem := check()) is not None:
                return problem
        target = self.order(order_id)
        if target.order_type != kind:
            return f"Order type is not {KINDS[kind][2]} order"
        if target.user_id != user_id:
            return (f"Order {order_id} does not belong to user {user_id}" if kind == "train" else
                    f"User {user_id} does not have permission to modify this order")
        if target.status != "paid":
            return (f"Only paid orders can be modified, current status: {target.status}" if kind == "train" else
                    "Only paid orders can be modified")
        if len(target.products) != 1:
            return f"Only single {kind} ticket order modification is supported"
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
            return f"New date {new_date} does not have {seat_type} type seats"
        if (new.quantity or 0) < quantity:
            return f"Insufficient {seat_type} seat inventory for new date {new_date}"
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
        if diff > 0:
            return f"Modification successful, need to pay additional amount: {diff}, please pay as soon as possible"
        return f"Modification successful, price difference: {diff}, refunded"

    def cancel_order(self, kind: str, order_id: str, user_id: str) -> str:
        if not order_id:
            return "Order ID cannot be empty"
        problem = self._user_problem(user_id)
        if problem:
            return problem
        target = self.order(order_id)
        if target.order_type != kind:
            return f"Order type is not {KINDS[kind][2]} order"
        if target.status == "cancelled":
            return "Order is already in cancelled status"
        refund: Any = target.total_price if target.status == "paid" else 0
        target.status, target.update_time = "cancelled", self.env.now_text()
        return f"Cancellation successful, refund amount: {refund}"
