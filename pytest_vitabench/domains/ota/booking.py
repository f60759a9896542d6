"""The travel domain's order life cycle, shared by its 37 tools: inventory, dates, ownership, refunds.

VitaBench 2.0 bugs fixed in both profiles (the deviations' "Fixes in both profiles"): taxi orders can be created, paid,
searched and cancelled; an unknown ``room_id`` is refused instead of producing an empty order; searching hotel orders
when there are none returns an empty list. Cancelling an order puts its inventory back.
"""

from __future__ import annotations

from typing import Any

from ..base import ToolError
from ..clock import parse_date
from ..declare import ToolSet
from ..entities import Order, OrderProduct
from .models import ORDER_KINDS, OtaDB

ORDER_PREFIX = "OO"
STATUSES = ("unpaid", "paid", "cancelled")
#: The order kinds whose product carries its own date (a hotel room's night, a taxi ride).
SELF_DATED = ("hotel", "taxi")


class OtaBooking(ToolSet):
    """Booking helpers over the :class:`OtaDB` containers; the tools themselves are on ``OtaTools``."""

    db: OtaDB
    def entity(self, order_type: str, entity_id: str) -> Any:
        container, _, _, _ = ORDER_KINDS[order_type]
        found = getattr(self.db, container).get(str(entity_id).strip())
        if found is None:
            raise ToolError(f"{order_type.capitalize()} {entity_id!r} not found")
        return found

    def today(self) -> str | None:
        return self.env.now().date().isoformat() if self.db.time else None

    def check_date(self, value: str, what: str = "date") -> str:
        day = parse_date(value, what).isoformat()
        now = self.today()
        if now is not None and day < now and self.env.checking("past_dates"):
            raise ToolError(f"The {what} {day} is in the past (today is {now})")
        return day

    @staticmethod
    def check_quantity(quantity: Any) -> int:
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
            raise ToolError(f"quantity must be a positive integer, got {quantity!r}")
        return quantity

    @staticmethod
    def take(product: Any, quantity: int) -> None:
        if product.quantity is not None:
            if product.quantity < quantity:
                raise ToolError(
                    f"Not enough inventory for {product.product_id!r} on {product.date or 'that date'}: "
                    f"{product.quantity} left, {quantity} requested"
                )
            product.quantity -= quantity

    def give_back(self, order: Order) -> None:
        found = getattr(self.db, ORDER_KINDS[order.order_type][0]).get(order.store_id)
        for line in order.products:
            for product in found.products if found is not None else []:
                if product.product_id == line.product_id and (product.date or None) == (line.date or None):
                    if product.quantity is not None:
                        product.quantity += line.quantity
                    break

    @staticmethod
    def line_for(order_type: str, product: Any, quantity: int) -> OrderProduct:
        kind_field = ORDER_KINDS[order_type][3]
        extra = {"platform": product.platform} if order_type == "taxi" else {}
        return OrderProduct(
            product_id=product.product_id,
            price=product.price,
            quantity=quantity,
            date=product.date or None,
            **{kind_field: getattr(product, kind_field)},
            **extra,
        )

    def create(self, order_type: str, entity_id: str, product_id: str, user_id: str, quantity: Any,
               date: Any = None, what: str = "product") -> dict[str, Any]:
        """Order ``quantity`` of an entity's product for the user: the product on ``date``, or for a hotel room
        or a taxi ride the product itself, which carries its date (``what`` names it to the agent)."""
        env = self.env
        env.check_user(user_id)
        found = self.entity(order_type, entity_id)
        if order_type in SELF_DATED:
            product = self.undated_product(order_type, found, product_id, what)
        else:
            product = self.dated_product(order_type, found, product_id, date)
        quantity = self.check_quantity(quantity)
        self.take(product, quantity)
        now = env.now_text()
        order = Order(
            order_id=env.new_id(ORDER_PREFIX),
            order_type=order_type,
            user_id=self.db.user_id,
            store_id=getattr(found, ORDER_KINDS[order_type][1]),
            total_price=round(product.price * quantity, 2),
            create_time=now,
            update_time=now,
            status="unpaid",
            products=[self.line_for(order_type, product, quantity)],
        )
        self.db.orders[order.order_id] = order
        return self.env.order_view(order)

    def dated_product(self, order_type: str, found: Any, product_id: str, date: str) -> Any:
        day = self.check_date(date)
        candidates = [p for p in found.products if p.product_id == str(product_id).strip()]
        if not candidates:
            raise ToolError(
                f"{order_type.capitalize()} {getattr(found, ORDER_KINDS[order_type][1])!r} has no "
                f"product {product_id!r}"
            )
        for product in candidates:
            if product.date[:10] == day:
                return product
        dates = ", ".join(sorted({p.date for p in candidates if p.date})) or "none"
        raise ToolError(f"Product {product_id!r} is not available on {day} (available dates: {dates})")

    def undated_product(self, order_type: str, found: Any, product_id: str, what: str) -> Any:
        # Hotel rooms and taxi rides carry their date in the product itself.
        product = next((p for p in found.products if p.product_id == str(product_id).strip()), None)
        if product is None:
            raise ToolError(f"{order_type.capitalize()} {getattr(found, ORDER_KINDS[order_type][1])!r} has no "
                            f"{what} {product_id!r}")
        if product.date:
            self.check_date(product.date)
        return product

    def order_of(self, order_type: str, order_id: str) -> Order:
        return self.env.get_order(order_id, order_type)

    def own_order(self, order_type: str, order_id: str, user_id: str) -> Order:
        self.env.check_user(user_id)
        order = self.order_of(order_type, order_id)
        if order.user_id and order.user_id != self.db.user_id:
            raise ToolError("User ID does not match")
        return order

    def search_orders(self, order_type: str, user_id: str, date: str | None, status: str | None
                      ) -> list[dict[str, Any]]:
        self.env.check_user(user_id)
        wanted = str(status).strip().lower() if status else None
        if wanted is not None and wanted not in STATUSES:
            raise ToolError(f"Unknown status {status!r}; expected one of {', '.join(STATUSES)}")
        day = parse_date(date).isoformat() if date else None
        found = []
        for order in self.db.orders.values():
            if order.order_type != order_type or (order.user_id and order.user_id != self.db.user_id):
                continue
            if wanted is not None and order.status != wanted:
                continue
            if day is not None and not any((p.date or "")[:10] == day for p in order.products):
                continue
            found.append(self.env.order_view(order))
        return found
