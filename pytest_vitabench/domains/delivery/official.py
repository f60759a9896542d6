"""The delivery tools as the official harness runs them (``--vita-tool-results official``).

Each method is one official tool, re-implemented from reading the official source: the same checks in the same
order, the same state changes, and the same answer text. A failed precondition the official tool ``assert``\\ s is
answered as plain text (a result, not an error); a lookup that fails raises :class:`ToolError`, which the agent
reads as ``"Error: ..."`` (an error), as the official environment words an exception. What stays ours: generated
order ids, and the geocoder over this environment's own locations (the official one searches every location the
process has ever loaded).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .. import official_text as text
from ..base import ToolError
from ..clock import TIME_FORMAT
from ..entities import Order, OrderProduct
from ..geo import distance_m
from .models import Store, StoreProduct

if TYPE_CHECKING:
    from ..environment import DomainEnvironment


def _valid_time(value: Any) -> bool:
    try:
        datetime.strptime(str(value), TIME_FORMAT)
    except ValueError:
        return False
    return True


class OfficialDelivery:
    """The official behaviour of each delivery tool, over our environment and database."""

    def __init__(self, env: DomainEnvironment) -> None:
        self.env = env

    @property
    def db(self) -> Any:
        return self.env.db

    # ---- lookups (the official ones raise ValueError: the agent reads "Error: ...")

    def store(self, store_id: str) -> Store:
        if store_id not in self.db.stores:
            raise ToolError(f"Store {store_id} not found")
        return self.db.stores[store_id]

    def product(self, product_id: str) -> StoreProduct:
        for store in self.db.stores.values():
            for product in store.products:
                if product.product_id == product_id:
                    return product
        raise ToolError(f"{product_id} not found")

    def order(self, order_id: str) -> Order:
        if order_id not in self.db.orders:
            raise ToolError(f"Order {order_id} not found")
        found = self.db.orders[order_id]
        if found.order_type != "delivery":
            raise ToolError(f"Order {order_id} is not a delivery order")
        return found

    def order_repr(self, order: Order) -> str:
        return text.order_text(self.db, order)

    # ---- the tools

    def delivery_distance_to_time(self, distance: Any) -> str:
        if isinstance(distance, bool) or not isinstance(distance, (int, float)):
            return f"distance value type should be float or int, but get {type(distance)}"
        # The official environment turns a number into its text, then encodes that text as JSON: '"33.0"'.
        return text.json_number(round(25.00 + int(distance) * 0.006510, 0))

    def get_delivery_store_info(self, store_id: str) -> str:
        return text.store_repr(self.store(store_id))

    def get_delivery_product_info(self, product_id: str) -> str:
        return text.store_product_repr(self.product(product_id))

    def store_search(self, ranked: list[Store]) -> str:
        return "\n".join(text.store_str(s) for s in ranked)

    def product_search(self, ranked: list[StoreProduct]) -> str:
        return "\n".join(text.store_product_repr(p) for p in ranked)

    def create_delivery_order(self, user_id: str, store_id: str, product_ids: list[str], product_cnts: list[int],
                              address: str, dispatch_time: str, attributes: list[str] | None,
                              note: str | None) -> str:
        env = self.env
        if not user_id:
            return "User ID cannot be empty"
        if user_id != self.db.user_id:
            return "User ID does not match"
        if store_id not in self.db.stores:
            return f"Store {store_id} not found"
        products = [self.product(pid) for pid in product_ids]
        if address == "":
            return f"Location {address} is empty"
        if len(product_ids) != len(product_cnts) or not all(cnt > 0 for cnt in product_cnts):
            return f"product_cnts {product_cnts!r} list is invalid"
        if not dispatch_time or not _valid_time(dispatch_time):
            return f"dispatch_time {dispatch_time} time format is invalid, yyyy-mm-dd HH:MM:SS required"
        dispatch = datetime.strptime(dispatch_time, TIME_FORMAT)
        if dispatch < env.now():
            return f"dispatch_time {dispatch_time} must be in the future"
        store = self.db.stores[store_id]
        try:
            destination = env.geocode(address)
        except ToolError:
            raise ToolError(f"Longitude and latitude not found for address {address}") from None
        distance = distance_m(destination, store.location) if store.location else 0.0
        shipping = float(round(25.00 + int(distance) * 0.006510, 0))
        chosen = [""] * len(products)
        for i, attr in enumerate((attributes or [])[:len(products)]):
            if attr:
                chosen[i] = attr
        now = env.now_text()
        created = Order(
            order_id=env.new_id("OT"), order_type="delivery", user_id=user_id, store_id=store_id,
            location=destination.model_copy(), dispatch_time=dispatch_time, shipping_time=shipping,
            delivery_time=(dispatch + timedelta(minutes=shipping)).strftime(TIME_FORMAT),
            total_price=sum(p.price * cnt for p, cnt in zip(products, product_cnts, strict=False)),
            create_time=now, update_time=now, note=note if note is not None else "", status="unpaid",
            products=[OrderProduct(product_id=p.product_id, name=p.name, price=p.price, quantity=cnt, attributes=attr)
                      for p, cnt, attr in zip(products, product_cnts, chosen, strict=False)],
        )
        self.db.orders[created.order_id] = created
        return self.order_repr(created)

    def pay_delivery_order(self, order_id: str) -> str:
        target = self.order(order_id)
        if target.status != "unpaid":
            return "Order is not in `unpaid` status."
        target.status = "paid"
        return "Payment successful"

    def get_delivery_order_status(self, order_id: str) -> str:
        return self.order(order_id).status

    def cancel_delivery_order(self, order_id: str) -> str:
        target = self.order(order_id)
        if target.status == "cancelled":
            return f"Order {order_id} is already cancelled"
        target.status = "cancelled"
        return f"Order {target.order_id} has been cancelled."

    def modify_delivery_order(self, order_id: str, note: str) -> str:
        target = self.order(order_id)
        target.note = note
        return f"Order {target.order_id} has been modified."

    def search_delivery_orders(self, user_id: str, status: str) -> str:
        if not user_id:
            return "User ID cannot be empty"
        if user_id != self.db.user_id:
            return "User ID does not match"
        found = [o for o in self.db.orders.values()
                 if o.order_type == "delivery" and o.status == status and o.user_id == user_id]
        return "\n".join(text.order_str(o) for o in found) if found else "No delivery orders available"

    def get_delivery_order_detail(self, order_id: str) -> str:
        if not order_id:
            return "Order ID cannot be empty"
        return self.order_repr(self.order(order_id))
