"""The 16 instore tools (REFERENCE.md §2.3), official names and arguments, inherited bugs fixed:
ordering decrements stock (and refuses when it is insufficient) instead of overwriting it, and
reservations / bookings require the shop to enable them."""

from __future__ import annotations

from typing import Any

from ..base import Tool, ToolError
from ..shared import (
    ORDER_ID_ARG,
    USER_ID_ARG,
    DomainEnvironment,
    Order,
    OrderProduct,
    arg,
    format_time,
    fuzzy_rank,
    params,
    parse_time,
    str_list,
)
from .models import BookInfo, InStoreDB, ReservationInfo, Shop, ShopProduct

ORDER_PREFIX = "OI"
RESERVATION_PREFIX = "RS"
BOOK_PREFIX = "BK"
ORDER_TYPE = "instore"


def domain_tools(env: DomainEnvironment) -> list[Tool]:
    """The instore-specific tools bound to ``env`` (its ``db`` has shops, reservations and books)."""
    db: InStoreDB = env.db

    def shop(shop_id: str) -> Shop:
        key = str(shop_id).strip()
        # Accept the dict key or the shop's own shop_id (official data sometimes differs).
        found = db.shops.get(key) or next((s for s in db.shops.values() if s.shop_id == key), None)
        if found is None:
            raise ToolError(f"Shop {shop_id!r} not found")
        return found

    def order(order_id: str) -> Order:
        return env.get_order(order_id, ORDER_TYPE)

    def reservation(reservation_id: str) -> ReservationInfo:
        found = db.reservations.get(str(reservation_id).strip())
        if found is None:
            raise ToolError(f"Reservation {reservation_id!r} not found")
        return found

    def book(book_id: str) -> BookInfo:
        found = db.books.get(str(book_id).strip())
        if found is None:
            raise ToolError(f"Booking {book_id!r} not found")
        return found

    def visit_view(item: ReservationInfo | BookInfo) -> dict[str, Any]:
        view = item.view()
        name = env.entity_name(item.shop_id)
        return {**view, "shop_name": name} if name else view

    def future_time(value: str) -> str:
        when = parse_time(value, "time")
        if when < env.now() and env.checking("past_dates"):
            raise ToolError(f"time {format_time(when)} is in the past (now is {env.now_text()})")
        return format_time(when)

    def positive_count(count: Any, what: str) -> int:
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ToolError(f"{what} must be a positive integer")
        return count

    def instore_shop_search_recommend(keywords: list[str]) -> list[dict[str, Any]]:
        candidates = [(s.shop_id, f"{s.shop_name},{','.join(s.tags)}", s) for s in db.shops.values()]
        return [s.summary() for s in fuzzy_rank(keywords, candidates)]

    def instore_product_search_recommend(keywords: list[str]) -> list[dict[str, Any]]:
        candidates = [
            (p.product_id, f"{p.name},{','.join(p.tags)}", p) for s in db.shops.values() for p in s.products
        ]
        return [p.view() for p in fuzzy_rank(keywords, candidates)]

    def create_instore_product_order(
        user_id: str, shop_id: str, product_id: str, quantity: int = 1
    ) -> dict[str, Any]:
        env.check_user(user_id)
        target = shop(shop_id)
        count = positive_count(quantity, "quantity")
        product: ShopProduct | None = next(
            (p for p in target.products if p.product_id == str(product_id).strip()), None
        )
        if product is None:
            raise ToolError(f"Product {product_id!r} not found in shop {target.shop_id!r}")
        if product.quantity is not None and env.checking("stock"):
            if product.quantity < count:
                raise ToolError(
                    f"Insufficient stock for product {product.product_id!r}: {product.quantity} left"
                )
            product.quantity -= count
        now = env.now_text()
        created = Order(
            order_id=env.new_id(ORDER_PREFIX),
            order_type=ORDER_TYPE,
            user_id=db.user_id,
            store_id=target.shop_id,
            location=target.location.model_copy() if target.location else None,
            dispatch_time="",
            delivery_time="",
            total_price=round(product.price * count, 2),
            create_time=now,
            update_time=now,
            status="unpaid",
            products=[
                OrderProduct(
                    product_id=product.product_id, name=product.name, price=product.price, quantity=count
                )
            ],
        )
        db.orders[created.order_id] = created
        return env.order_view(created)

    def pay_instore_order(order_id: str) -> dict[str, Any]:
        target = order(order_id)
        if target.status != "unpaid":
            raise ToolError(
                f"Order {target.order_id} cannot be paid: its status is {target.status!r}, not 'unpaid'"
            )
        target.status, target.update_time = "paid", env.now_text()
        return {"order_id": target.order_id, "status": target.status, "message": "Payment successful"}

    def instore_cancel_order(order_id: str) -> dict[str, Any]:
        target = order(order_id)
        if target.status in ("cancelled", "consumed"):
            raise ToolError(f"Order {target.order_id} cannot be cancelled: its status is {target.status!r}")
        # Give the stock back, so a cancel-and-reorder does not exhaust it.
        owner = env.find_entity(target.store_id)
        for line in target.products:
            for product in owner.products if isinstance(owner, Shop) else []:
                if product.product_id == line.product_id and product.quantity is not None:
                    product.quantity += line.quantity
        target.status, target.update_time = "cancelled", env.now_text()
        return {"order_id": target.order_id, "status": target.status, "message": "Order cancelled"}

    def instore_book(user_id: str, shop_id: str, time: str, customer_count: int = 1) -> dict[str, Any]:
        env.check_user(user_id)
        target = shop(shop_id)
        if not target.enable_book:
            raise ToolError(f"Shop {target.shop_id!r} does not accept bookings")
        count = positive_count(customer_count, "customer_count")
        when = future_time(time)
        now = env.now_text()
        created = BookInfo(
            book_id=env.new_id(BOOK_PREFIX),
            shop_id=target.shop_id,
            book_time=when,
            create_time=now,
            update_time=now,
            customer_id=db.user_id,
            customer_count=count,
            book_price=target.book_price,
            status="unpaid" if target.book_price > 0 else "paid",
        )
        db.books[created.book_id] = created
        return visit_view(created)

    def pay_instore_book(book_id: str) -> dict[str, Any]:
        target = book(book_id)
        if target.status != "unpaid":
            raise ToolError(
                f"Booking {target.book_id} cannot be paid: its status is {target.status!r}, not 'unpaid'"
            )
        target.status, target.update_time = "paid", env.now_text()
        return {"book_id": target.book_id, "status": target.status, "message": "Payment successful"}

    def instore_cancel_book(book_id: str) -> dict[str, Any]:
        target = book(book_id)
        if target.status in ("cancelled", "consumed"):
            raise ToolError(f"Booking {target.book_id} cannot be cancelled: its status is {target.status!r}")
        target.status, target.update_time = "cancelled", env.now_text()
        return {"book_id": target.book_id, "status": target.status, "message": "Booking cancelled"}

    def instore_reservation(user_id: str, shop_id: str, time: str, customer_count: int = 1) -> dict[str, Any]:
        env.check_user(user_id)
        target = shop(shop_id)
        if not target.enable_reservation and env.checking("reservation"):
            raise ToolError(f"Shop {target.shop_id!r} does not accept reservations")
        count = positive_count(customer_count, "customer_count")
        when = future_time(time)
        now = env.now_text()
        created = ReservationInfo(
            reservation_id=env.new_id(RESERVATION_PREFIX),
            shop_id=target.shop_id,
            reservation_time=when,
            create_time=now,
            update_time=now,
            customer_id=db.user_id,
            customer_count=count,
            status="unconsumed",
        )
        db.reservations[created.reservation_id] = created
        return visit_view(created)

    def instore_modify_reservation(reservation_id: str, time: str, customer_count: int = 0) -> dict[str, Any]:
        target = reservation(reservation_id)
        if target.status in ("consumed", "cancelled"):
            raise ToolError(
                f"Reservation {target.reservation_id} cannot be modified: its status is {target.status!r}"
            )
        if not isinstance(customer_count, int) or isinstance(customer_count, bool) or customer_count < 0:
            raise ToolError("customer_count must be a non-negative integer (0 keeps the current count)")
        target.reservation_time = future_time(time)
        if customer_count:
            target.customer_count = customer_count
        target.update_time = env.now_text()
        return visit_view(target)

    def instore_cancel_reservation(reservation_id: str) -> dict[str, Any]:
        target = reservation(reservation_id)
        if target.status in ("consumed", "cancelled"):
            raise ToolError(
                f"Reservation {target.reservation_id} cannot be cancelled: its status is {target.status!r}"
            )
        target.status, target.update_time = "cancelled", env.now_text()
        return {
            "reservation_id": target.reservation_id,
            "status": target.status,
            "message": "Reservation cancelled",
        }

    def get_instore_orders(user_id: str) -> Any:
        env.check_user(user_id)
        found = [env.order_view(o) for o in db.orders.values() if o.order_type == ORDER_TYPE]
        return found or "User has no instore orders"

    def get_instore_reservations(user_id: str) -> Any:
        env.check_user(user_id)
        return [visit_view(r) for r in db.reservations.values()] or "User has no reservations"

    def get_instore_books(user_id: str) -> Any:
        env.check_user(user_id)
        return [visit_view(b) for b in db.books.values()] or "User has no bookings"

    def search_instore_book(user_id: str, book_id: str | None = None) -> Any:
        env.check_user(user_id)
        if book_id:
            return visit_view(book(book_id))
        return get_instore_books(user_id)

    def search_instore_reservation(user_id: str, reservation_id: str | None = None) -> Any:
        env.check_user(user_id)
        if reservation_id:
            return visit_view(reservation(reservation_id))
        return get_instore_reservations(user_id)

    shop_id_arg = arg("string", "The shop's ID, as returned by a shop search.")
    keywords_arg = str_list("Search keywords, e.g. shop or dish names, cuisine, service or features.")
    time_arg = arg("string", "Arrival date and time, 'YYYY-MM-DD HH:MM:SS' (not in the past).")
    count_arg = arg("integer", "Number of people (at least 1; default 1).")
    reservation_id_arg = arg("string", "The reservation ID returned by instore_reservation.")
    book_id_arg = arg("string", "The booking ID returned by instore_book.")
    user_only = params(["user_id"], user_id=USER_ID_ARG)
    return [
        Tool(
            "instore_shop_search_recommend",
            "Search in-store shops by keywords (matched against shop names and tags). Returns shops ranked "
            "by relevance with score, location, tags and whether they accept bookings / reservations.",
            params(["keywords"], keywords=keywords_arg),
            instore_shop_search_recommend,
            "read",
        ),
        Tool(
            "instore_product_search_recommend",
            "Search in-store products (dishes, set meals, services) by keywords (matched against product "
            "names and tags). Returns products ranked by relevance with price, stock and shop.",
            params(["keywords"], keywords=keywords_arg),
            instore_product_search_recommend,
            "read",
        ),
        Tool(
            "create_instore_product_order",
            "Order a product of a shop (status 'unpaid'). Preconditions: the user ID is the current "
            "user's; the product belongs to the shop and enough stock is left. Postconditions: stock is "
            "reduced by the quantity; the order must still be paid with pay_instore_order.",
            params(
                ["user_id", "shop_id", "product_id"],
                user_id=USER_ID_ARG,
                shop_id=shop_id_arg,
                product_id=arg("string", "The product's ID within this shop."),
                quantity=arg("integer", "How many to buy (at least 1; default 1)."),
            ),
            create_instore_product_order,
            "write",
        ),
        Tool(
            "pay_instore_order",
            "Pay an unpaid instore order. Precondition: status 'unpaid'. Postcondition: status 'paid'.",
            params(["order_id"], order_id=ORDER_ID_ARG),
            pay_instore_order,
            "write",
        ),
        Tool(
            "instore_cancel_order",
            "Cancel an instore order and return its stock. Postcondition: status 'cancelled'.",
            params(["order_id"], order_id=ORDER_ID_ARG),
            instore_cancel_order,
            "write",
        ),
        Tool(
            "instore_book",
            "Book a shop (a paid booking). Preconditions: the shop accepts bookings (enable_book); the time "
            "is not in the past. Postconditions: a booking exists, 'unpaid' if the shop's book_price is "
            "positive (pay it with pay_instore_book), otherwise 'paid'.",
            params(
                ["user_id", "shop_id", "time"],
                user_id=USER_ID_ARG,
                shop_id=shop_id_arg,
                time=time_arg,
                customer_count=count_arg,
            ),
            instore_book,
            "write",
        ),
        Tool(
            "pay_instore_book",
            "Pay an unpaid booking. Precondition: status 'unpaid'. Postcondition: status 'paid'.",
            params(["book_id"], book_id=book_id_arg),
            pay_instore_book,
            "write",
        ),
        Tool(
            "instore_cancel_book",
            "Cancel a booking. Postcondition: status 'cancelled'.",
            params(["book_id"], book_id=book_id_arg),
            instore_cancel_book,
            "write",
        ),
        Tool(
            "instore_reservation",
            "Reserve a table/slot at a shop (free). Preconditions: the shop accepts reservations "
            "(enable_reservation); the time is not in the past. Postcondition: a reservation with status "
            "'unconsumed'.",
            params(
                ["user_id", "shop_id", "time"],
                user_id=USER_ID_ARG,
                shop_id=shop_id_arg,
                time=time_arg,
                customer_count=count_arg,
            ),
            instore_reservation,
            "write",
        ),
        Tool(
            "instore_modify_reservation",
            "Change a reservation's time and optionally its number of people. Precondition: not consumed "
            "or cancelled.",
            params(
                ["reservation_id", "time"],
                reservation_id=reservation_id_arg,
                time=arg("string", "The new date and time, 'YYYY-MM-DD HH:MM:SS' (not in the past)."),
                customer_count=arg("integer", "The new number of people; 0 (default) keeps the current one."),
            ),
            instore_modify_reservation,
            "write",
        ),
        Tool(
            "instore_cancel_reservation",
            "Cancel a reservation. Precondition: not consumed or cancelled. Postcondition: 'cancelled'.",
            params(["reservation_id"], reservation_id=reservation_id_arg),
            instore_cancel_reservation,
            "write",
        ),
        Tool("get_instore_orders", "List the user's instore orders.", user_only, get_instore_orders, "read"),
        Tool(
            "get_instore_reservations",
            "List the user's reservations.",
            user_only,
            get_instore_reservations,
            "read",
        ),
        Tool("get_instore_books", "List the user's bookings.", user_only, get_instore_books, "read"),
        Tool(
            "search_instore_book",
            "Get one booking by ID, or all the user's bookings when no ID is given.",
            params(["user_id"], user_id=USER_ID_ARG, book_id=arg("string", "Optional booking ID.")),
            search_instore_book,
            "read",
        ),
        Tool(
            "search_instore_reservation",
            "Get one reservation by ID, or all the user's reservations when no ID is given.",
            params(
                ["user_id"], user_id=USER_ID_ARG, reservation_id=arg("string", "Optional reservation ID.")
            ),
            search_instore_reservation,
            "read",
        ),
    ]
