"""The delivery tools as the official harness runs them (``--vita-deviation tool-results=official``).

Each method is one official tool: the same checks in the same order, state changes and answer text. A failed
``assert`` answers as plain text; a failed lookup raises :class:`ToolError` (``"Error: ..."``), as the official
environment words an exception. Ours: generated order ids, and the geocoder over this environment's own
locations (the official one searches every location the process has ever loaded).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ..domains.base import ToolError
from ..domains.clock import TIME_FORMAT
from ..domains.delivery.models import Store, StoreProduct, shipping_minutes
from ..domains.entities import Order, OrderProduct
from ..domains.geo import distance_m
from . import record_text as text
from .messages import message
from .shared_tools import NO_COORDINATES, OfficialTools, valid_time

_FILE = "delivery"
STORE_NOT_FOUND = message(_FILE, "_get_store", "store_id")
PRODUCT_NOT_FOUND = message(_FILE, "_get_store_product", "product_id")
ORDER_NOT_FOUND = message(_FILE, "_get_delivery_order", "order_id")
NOT_A_DELIVERY_ORDER = message(_FILE, "_get_delivery_order", "order_id", nth=1)
DISTANCE_TYPE = message(_FILE, "delivery_distance_to_time", "type(distance)")
NO_USER_ID = message(_FILE, "create_delivery_order")
WRONG_USER = message(_FILE, "create_delivery_order", nth=1)
NO_STORE = message(_FILE, "create_delivery_order", "store_id")
NO_ADDRESS = message(_FILE, "create_delivery_order", "address")
BAD_COUNTS = message(_FILE, "create_delivery_order", "product_cnts")
BAD_DISPATCH_FORMAT = message(_FILE, "create_delivery_order", "dispatch_time")
PAST_DISPATCH = message(_FILE, "create_delivery_order", "dispatch_time", nth=1)
NOT_UNPAID = message(_FILE, "pay_delivery_order")
PAID = message(_FILE, "pay_delivery_order", nth=1)
ALREADY_CANCELLED = message(_FILE, "cancel_delivery_order", "order_id")
CANCELLED = message(_FILE, "cancel_delivery_order", "order.order_id")
MODIFIED = message(_FILE, "modify_delivery_order", "order.order_id")
SEARCH_NO_USER_ID = message(_FILE, "search_delivery_orders")
SEARCH_WRONG_USER = message(_FILE, "search_delivery_orders", nth=1)
NO_ORDERS = message(_FILE, "search_delivery_orders", nth=2)
NO_ORDER_ID = message(_FILE, "get_delivery_order_detail")


class OfficialDelivery(OfficialTools):
    """The official behaviour of each delivery tool, over our environment and database."""

    def product(self, product_id: str) -> StoreProduct:
        return self.catalogue_product("stores", product_id, PRODUCT_NOT_FOUND)

    def order(self, order_id: str) -> Order:
        return self.typed_order(order_id, "delivery", ORDER_NOT_FOUND, NOT_A_DELIVERY_ORDER)

    # ---- the tools

    def delivery_distance_to_time(self, distance: Any) -> str:
        if isinstance(distance, bool) or not isinstance(distance, (int, float)):
            return self.say(DISTANCE_TYPE, type(distance))
        # The official environment turns a number into its text, then encodes that text as JSON: '"33.0"'.
        return text.json_number(float(shipping_minutes(distance)))

    def get_delivery_store_info(self, store_id: str) -> str:
        return text.store_repr(self.keyed(self.db.stores, store_id, STORE_NOT_FOUND))

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
        if problem := self.user_problem(user_id, (NO_USER_ID, WRONG_USER)):
            return problem
        if store_id not in self.db.stores:
            return env.say(NO_STORE, store_id)
        products = [self.product(pid) for pid in product_ids]
        if address == "":
            return env.say(NO_ADDRESS, address)
        if len(product_ids) != len(product_cnts) or not all(cnt > 0 for cnt in product_cnts):
            return env.say(BAD_COUNTS, product_cnts)
        if not dispatch_time or not valid_time(dispatch_time):
            return env.say(BAD_DISPATCH_FORMAT, dispatch_time)
        dispatch = datetime.strptime(dispatch_time, TIME_FORMAT)
        if dispatch < env.now():
            return env.say(PAST_DISPATCH, dispatch_time)
        store = self.db.stores[store_id]
        try:
            destination = env.geocode(address)
        except ToolError:
            raise ToolError(env.say(NO_COORDINATES, address)) from None
        distance = distance_m(destination, store.location) if store.location else 0.0
        shipping = float(shipping_minutes(distance))
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
            return self.say(NOT_UNPAID)
        target.status = "paid"
        return self.say(PAID)

    def get_delivery_order_status(self, order_id: str) -> str:
        return self.order(order_id).status

    def cancel_delivery_order(self, order_id: str) -> str:
        target = self.order(order_id)
        if target.status == "cancelled":
            return self.say(ALREADY_CANCELLED, order_id)
        target.status = "cancelled"
        return self.say(CANCELLED, target.order_id)

    def modify_delivery_order(self, order_id: str, note: str) -> str:
        target = self.order(order_id)
        target.note = note
        return self.say(MODIFIED, target.order_id)

    def search_delivery_orders(self, user_id: str, status: str) -> str:
        if problem := self.user_problem(user_id, (SEARCH_NO_USER_ID, SEARCH_WRONG_USER)):
            return problem
        found = [o for o in self.db.orders.values()
                 if o.order_type == "delivery" and o.status == status and o.user_id == user_id]
        return "\n".join(text.order_str(o) for o in found) if found else self.say(NO_ORDERS)

    def get_delivery_order_detail(self, order_id: str) -> str:
        if not order_id:
            return self.say(NO_ORDER_ID)
        return self.order_repr(self.order(order_id))
