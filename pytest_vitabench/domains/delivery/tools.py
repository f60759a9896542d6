"""The 12 delivery tools (REFERENCE.md §2.2), with the official names and argument names."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..base import Tool, ToolError
from ..shared import (
    ORDER_ID_ARG,
    USER_ID_ARG,
    DomainEnvironment,
    Order,
    OrderProduct,
    arg,
    distance_m,
    format_time,
    fuzzy_rank,
    int_list,
    params,
    parse_time,
    str_list,
)
from .models import DeliveryDB, Store, StoreProduct

ORDER_PREFIX = "OT"
ORDER_TYPE = "delivery"


def shipping_minutes(distance: float) -> int:
    """Delivery minutes for a distance in metres (the official linear formula)."""
    return round(25.00 + int(distance) * 0.006510)


def domain_tools(env: DomainEnvironment) -> list[Tool]:
    """The delivery-specific tools bound to ``env`` (whose ``db`` has ``stores``)."""
    db: DeliveryDB = env.db

    def store(store_id: str) -> Store:
        key = str(store_id).strip()
        # A few official stores are keyed differently from their store_id; accept either.
        found = db.stores.get(key) or next((s for s in db.stores.values() if s.store_id == key), None)
        if found is None:
            raise ToolError(f"Store {store_id!r} not found")
        return found

    def find_product(product_id: str) -> StoreProduct:
        for candidate in db.stores.values():
            for product in candidate.products:
                if product.product_id == product_id:
                    return product
        raise ToolError(f"Product {product_id!r} not found")

    def order(order_id: str) -> Order:
        return env.get_order(order_id, ORDER_TYPE)

    def touch(target: Order, status: str | None = None) -> None:
        if status is not None:
            target.status = status
        target.update_time = env.now_text()

    def delivery_distance_to_time(distance: float) -> int:
        if float(distance) < 0:
            raise ToolError("distance must not be negative")
        return shipping_minutes(float(distance))

    def get_delivery_store_info(store_id: str) -> dict[str, Any]:
        return store(store_id).view()

    def get_delivery_product_info(product_id: str) -> dict[str, Any]:
        return find_product(str(product_id).strip()).view()

    def delivery_store_search_recommand(keywords: list[str]) -> list[dict[str, Any]]:
        candidates = [(s.store_id, f"{s.name} {' '.join(s.tags)}", s) for s in db.stores.values()]
        return [s.summary() for s in fuzzy_rank(keywords, candidates)]

    def delivery_product_search_recommand(keywords: list[str]) -> list[dict[str, Any]]:
        candidates = [
            (p.product_id, f"{p.store_name} {p.name} {' '.join(p.tags)}", p)
            for s in db.stores.values()
            for p in s.products
        ]
        return [p.view() for p in fuzzy_rank(keywords, candidates)]

    def create_delivery_order(
        user_id: str,
        store_id: str,
        product_ids: list[str],
        product_cnts: list[int],
        address: str,
        dispatch_time: str,
        attributes: list[str] | None = None,
        note: str = "",
    ) -> dict[str, Any]:
        env.check_user(user_id)
        target = store(store_id)
        if not product_ids:
            raise ToolError("product_ids must not be empty")
        if len(product_ids) != len(product_cnts):
            raise ToolError("product_ids and product_cnts must have the same length")
        attrs = list(attributes or [])
        if attrs and len(attrs) != len(product_ids) and env.checking("attributes"):
            raise ToolError(
                "attributes must have one entry per product (use '' for a product without options)"
            )
        catalogue = {p.product_id: p for p in target.products}
        lines: list[OrderProduct] = []
        for index, (pid, count) in enumerate(zip(product_ids, product_cnts, strict=False)):
            product = catalogue.get(str(pid).strip())
            if product is None and not env.checking("single_store"):
                # the official tool only asks that the product exists somewhere in the database
                product = next((p for shop in db.stores.values() for p in shop.products
                                if p.product_id == str(pid).strip()), None)
            if product is None:
                raise ToolError(f"Product {pid!r} not found in store {target.store_id!r}")
            if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
                raise ToolError(f"Quantity for product {pid!r} must be a positive integer")
            if env.checking("stock") and product.quantity is not None and product.quantity < count:
                raise ToolError(f"Insufficient stock for product {pid!r}: {product.quantity} left")
            lines.append(
                OrderProduct(
                    product_id=product.product_id,
                    name=product.name,
                    price=product.price,
                    quantity=count,
                    attributes=attrs[index] if index < len(attrs) else "",
                )
            )
        dispatch = parse_time(dispatch_time, "dispatch_time")
        now = env.now()
        if dispatch < now:
            raise ToolError(
                f"dispatch_time {format_time(dispatch)} is in the past (now is {format_time(now)})"
            )
        if target.location is None:
            raise ToolError(f"Store {target.store_id!r} has no location; cannot deliver")
        destination = env.geocode(address)
        minutes = shipping_minutes(distance_m(destination, target.location))
        for line in lines if env.checking("stock") else ():
            product = catalogue.get(line.product_id) or find_product(line.product_id)
            if product.quantity is not None:
                product.quantity -= line.quantity
        created = Order(
            order_id=env.new_id(ORDER_PREFIX),
            order_type=ORDER_TYPE,
            user_id=db.user_id,
            store_id=target.store_id,
            note=note or "",
            location=destination.model_copy(),
            dispatch_time=format_time(dispatch),
            shipping_time=minutes,
            delivery_time=format_time(dispatch + timedelta(minutes=minutes)),
            total_price=round(sum(line.price * line.quantity for line in lines), 2),
            create_time=format_time(now),
            update_time=format_time(now),
            status="unpaid",
            products=lines,
        )
        db.orders[created.order_id] = created
        return env.order_view(created)

    def pay_delivery_order(order_id: str) -> dict[str, Any]:
        target = order(order_id)
        if target.status != "unpaid":
            raise ToolError(
                f"Order {target.order_id} cannot be paid: its status is {target.status!r}, not 'unpaid'"
            )
        touch(target, "paid")
        return {"order_id": target.order_id, "status": target.status, "message": "Payment successful"}

    def get_delivery_order_status(order_id: str) -> dict[str, Any]:
        target = order(order_id)
        return {"order_id": target.order_id, "status": target.status}

    def cancel_delivery_order(order_id: str) -> dict[str, Any]:
        target = order(order_id)
        if target.status in ("cancelled", "delivered"):
            raise ToolError(f"Order {target.order_id} cannot be cancelled: its status is {target.status!r}")
        touch(target, "cancelled")
        return {"order_id": target.order_id, "status": target.status, "message": "Order cancelled"}

    def modify_delivery_order(order_id: str, note: str) -> dict[str, Any]:
        target = order(order_id)
        if target.status in ("cancelled", "delivered"):
            raise ToolError(f"Order {target.order_id} cannot be modified: its status is {target.status!r}")
        target.note = note
        touch(target)
        return env.order_view(target)

    def search_delivery_orders(user_id: str, status: str = "unpaid") -> Any:
        env.check_user(user_id)
        found = [
            env.order_view(o)
            for o in db.orders.values()
            if o.order_type == ORDER_TYPE and (not status or o.status == status)
        ]
        return found or f"No delivery orders with status {status!r}"

    def get_delivery_order_detail(order_id: str) -> dict[str, Any]:
        return env.order_view(order(order_id))

    store_id_arg = arg("string", "The store's ID, as returned by a store search or store info.")
    keywords_arg = str_list("Search keywords, e.g. dish names, cuisine or store features.")
    return [
        Tool(
            "delivery_distance_to_time",
            "Estimate the delivery duration in minutes for a distance in metres.",
            params(["distance"], distance=arg("number", "The distance in metres.")),
            delivery_distance_to_time,
            "generic",
        ),
        Tool(
            "get_delivery_store_info",
            "Get a delivery store's details: name, score, location, tags and its full product list "
            "(product IDs, names, prices, tags, selectable attributes).",
            params(["store_id"], store_id=store_id_arg),
            get_delivery_store_info,
            "read",
        ),
        Tool(
            "get_delivery_product_info",
            "Get one delivery product's details: name, price, store, tags and selectable attributes.",
            params(["product_id"], product_id=arg("string", "The product's ID, e.g. from a product search.")),
            get_delivery_product_info,
            "read",
        ),
        Tool(
            "delivery_store_search_recommand",
            "Search delivery stores by keywords (matched against store names and tags). Returns stores "
            "ranked by relevance, without their product lists; use get_delivery_store_info for those.",
            params(["keywords"], keywords=keywords_arg),
            delivery_store_search_recommand,
            "read",
        ),
        Tool(
            "delivery_product_search_recommand",
            "Search delivery products by keywords (matched against store name, product name and tags). "
            "Returns products ranked by relevance, each with its store ID and name.",
            params(["keywords"], keywords=keywords_arg),
            delivery_product_search_recommand,
            "read",
        ),
        Tool(
            "create_delivery_order",
            "Create a delivery order (status 'unpaid'). Preconditions: the user ID is the current user's; "
            "all products belong to the store; dispatch_time is not in the past. Postconditions: the order "
            "exists with a computed delivery_time (dispatch_time + shipping minutes from the distance "
            "between the store and the address); it must still be paid with pay_delivery_order.",
            params(
                ["user_id", "store_id", "product_ids", "product_cnts", "address", "dispatch_time"],
                user_id=USER_ID_ARG,
                store_id=store_id_arg,
                product_ids=str_list("IDs of the products to order, all from this store."),
                product_cnts=int_list(
                    "Quantity of each product, same order and length as product_ids (each at least 1)."
                ),
                address=arg("string", "The full delivery address."),
                dispatch_time=arg(
                    "string",
                    "When the store should dispatch the order, "
                    "'YYYY-MM-DD HH:MM:SS'; the current time for 'as soon as possible'.",
                ),
                attributes=str_list(
                    "Optional: the chosen options of each product (e.g. 'less spicy'), "
                    "same order and length as product_ids; '' for none."
                ),
                note=arg("string", "Optional note for the store or rider."),
            ),
            create_delivery_order,
            "write",
        ),
        Tool(
            "pay_delivery_order",
            "Pay an unpaid delivery order. Precondition: status 'unpaid'. Postcondition: status 'paid'.",
            params(["order_id"], order_id=ORDER_ID_ARG),
            pay_delivery_order,
            "write",
        ),
        Tool(
            "get_delivery_order_status",
            "Get the status of a delivery order.",
            params(["order_id"], order_id=ORDER_ID_ARG),
            get_delivery_order_status,
            "read",
        ),
        Tool(
            "cancel_delivery_order",
            "Cancel a delivery order. Precondition: not already cancelled or delivered. "
            "Postcondition: status 'cancelled'.",
            params(["order_id"], order_id=ORDER_ID_ARG),
            cancel_delivery_order,
            "write",
        ),
        Tool(
            "modify_delivery_order",
            "Replace the note of a delivery order. Precondition: not cancelled or delivered.",
            params(["order_id", "note"], order_id=ORDER_ID_ARG, note=arg("string", "The new note text.")),
            modify_delivery_order,
            "write",
        ),
        Tool(
            "search_delivery_orders",
            "List the user's delivery orders with a given status.",
            params(
                ["user_id"],
                user_id=USER_ID_ARG,
                status=arg(
                    "string",
                    "Order status to filter on (default 'unpaid'); '' for all.",
                    enum=["", "unpaid", "paid", "processed", "in-progress", "delivered", "cancelled"],
                ),
            ),
            search_delivery_orders,
            "read",
        ),
        Tool(
            "get_delivery_order_detail",
            "Get the full details of a delivery order.",
            params(["order_id"], order_id=ORDER_ID_ARG),
            get_delivery_order_detail,
            "read",
        ),
    ]
