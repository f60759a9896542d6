"""The 16 instore tools (23 with the shared ones), VitaBench 2.0's names and arguments, its bugs fixed:
ordering decrements stock (and refuses when it is insufficient) instead of overwriting it, and
reservations / bookings require the shop to enable them."""

from __future__ import annotations

from typing import Annotated, Any

from ..base import ToolError
from ..clock import format_time, parse_time
from ..declare import Arg, ToolSet, tool
from ..entities import Order, OrderProduct
from ..shared_tools import OrderId, UserId
from .models import BookInfo, InStoreDB, ReservationInfo, Shop, ShopProduct

ORDER_PREFIX = "OI"
RESERVATION_PREFIX = "RS"
BOOK_PREFIX = "BK"
ORDER_TYPE = "instore"
#: Statuses after which an order, booking or reservation can no longer change.
FINAL_STATUSES = ("cancelled", "consumed")

ShopId = Annotated[str, Arg("The shop's ID, as returned by a shop search.")]
Keywords = Annotated[list[str], Arg("Search keywords, e.g. shop or dish names, cuisine, service or features.")]
ArrivalTime = Annotated[str, Arg("Arrival date and time, 'YYYY-MM-DD HH:MM:SS' (not in the past).")]
Count = Annotated[int, Arg("Number of people (at least 1; default 1).")]
ReservationId = Annotated[str, Arg("The reservation ID returned by instore_reservation.")]
BookId = Annotated[str, Arg("The booking ID returned by instore_book.")]


def positive_count(count: Any, what: str) -> int:
    """``count`` if it is an integer of at least 1; ToolError otherwise."""
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ToolError(f"{what} must be a positive integer")
    return count


class InstoreTools(ToolSet):
    """Shop and product search, in-store orders, bookings (paid) and reservations (free)."""

    db: InStoreDB
    official_class = "InStoreTools"

    # ------------------------------------------------------------------ helpers

    def shop(self, shop_id: str) -> Shop:
        return self.env.entity("shops", shop_id, "Shop")

    def order(self, order_id: str) -> Order:
        return self.env.get_order(order_id, ORDER_TYPE)

    def visit_record(self, container: str, record_id: str, what: str) -> Any:
        """The reservation or booking ``record_id`` of ``container`` (``what`` names it); ToolError if none."""
        found = getattr(self.db, container).get(str(record_id).strip())
        if found is None:
            raise ToolError(f"{what} {record_id!r} not found")
        return found

    def reservation(self, reservation_id: str) -> ReservationInfo:
        return self.visit_record("reservations", reservation_id, "Reservation")

    def book(self, book_id: str) -> BookInfo:
        return self.visit_record("books", book_id, "Booking")

    def visit_view(self, item: ReservationInfo | BookInfo) -> dict[str, Any] | str:
        view = item.view()
        name = self.env.entity_name(item.shop_id)
        return {**view, "shop_name": name} if name else view

    def future_time(self, value: str) -> str:
        when = parse_time(value, "time")
        if when < self.env.now() and self.env.checking("past_dates"):
            raise ToolError(f"time {format_time(when)} is in the past (now is {self.env.now_text()})")
        return format_time(when)

    def visit(self, user_id: str, shop_id: str, time: str, customer_count: Any, what: str
              ) -> tuple[Shop, int, str, str]:
        """The checked shop, party size, arrival time and now of a new booking or reservation."""
        env = self.env
        env.check_user(user_id)
        target = self.shop(shop_id)
        # Bookings were always refused where disabled; reservations only under the "reservation" check.
        refused = not target.enable_book if what == "bookings" else (
            not target.enable_reservation and env.checking("reservation"))
        if refused:
            raise ToolError(f"Shop {target.shop_id!r} does not accept {what}")
        return target, positive_count(customer_count, "customer_count"), self.future_time(time), env.now_text()

    # ------------------------------------------------------------------ search

    @tool()
    def instore_shop_search_recommend(self, keywords: Keywords) -> list[dict[str, Any]] | str:
        """Search in-store shops by keywords (matched against shop names and tags). Returns shops ranked by
        relevance with score, location, tags and whether they accept bookings / reservations."""
        candidates = [(s.shop_id, f"{s.shop_name},{','.join(s.tags)}", s) for s in self.db.shops.values()]
        ranked = self.env.rank(keywords, candidates)
        if self.env.official_results:
            return self.answering.shop_search(ranked)
        return [s.summary() for s in ranked]

    @tool()
    def instore_product_search_recommend(self, keywords: Keywords) -> list[dict[str, Any]] | str:
        """Search in-store products (dishes, set meals, services) by keywords (matched against product names
        and tags). Returns products ranked by relevance with price, stock and shop."""
        candidates = [
            (p.product_id, f"{p.name},{','.join(p.tags)}", p) for s in self.db.shops.values() for p in s.products
        ]
        ranked = self.env.rank(keywords, candidates)
        if self.env.official_results:
            return self.answering.product_search(ranked)
        return [p.view() for p in ranked]

    # ------------------------------------------------------------------ orders

    @tool("create")
    def create_instore_product_order(
        self,
        user_id: UserId,
        shop_id: ShopId,
        product_id: Annotated[str, Arg("The product's ID within this shop.")],
        quantity: Annotated[int, Arg("How many to buy (at least 1; default 1).")] = 1,
    ) -> dict[str, Any] | str:
        """Order a product of a shop (status 'unpaid'). Preconditions: the user ID is the current user's;
        the product belongs to the shop and enough stock is left. Postconditions: stock is reduced by the
        quantity; the order must still be paid with pay_instore_order."""
        env = self.env
        env.check_user(user_id)
        target = self.shop(shop_id)
        count = positive_count(quantity, "quantity")
        product: ShopProduct | None = next(
            (p for p in target.products if p.product_id == str(product_id).strip()), None
        )
        if product is None:
            raise ToolError(f"Product {product_id!r} not found in shop {target.shop_id!r}")
        if product.quantity is not None and env.checking("stock"):
            if product.quantity < count:
                raise ToolError(f"Insufficient stock for product {product.product_id!r}: {product.quantity} left")
            product.quantity -= count
        now = env.now_text()
        created = Order(
            order_id=env.new_id(ORDER_PREFIX),
            order_type=ORDER_TYPE,
            user_id=self.db.user_id,
            store_id=target.shop_id,
            location=target.location.model_copy() if target.location else None,
            dispatch_time="",
            delivery_time="",
            total_price=round(product.price * count, 2),
            create_time=now,
            update_time=now,
            status="unpaid",
            products=[OrderProduct(
                product_id=product.product_id, name=product.name, price=product.price, quantity=count
            )],
        )
        self.db.orders[created.order_id] = created
        return env.order_view(created)

    @tool("write")
    def pay_instore_order(self, order_id: OrderId) -> dict[str, Any] | str:
        """Pay an unpaid instore order. Precondition: status 'unpaid'. Postcondition: status 'paid'."""
        return self.env.pay(self.order(order_id), "Order", "order_id")

    @tool("write")
    def instore_cancel_order(self, order_id: OrderId) -> dict[str, Any] | str:
        """Cancel an instore order and return its stock. Postcondition: status 'cancelled'."""
        target = self.order(order_id)
        answer = self.env.cancel(target, "Order", "order_id", FINAL_STATUSES)
        # Give the stock back, so a cancel-and-reorder does not exhaust it.
        owner = self.env.find_entity(target.store_id)
        for line in target.products:
            for product in owner.products if isinstance(owner, Shop) else []:
                if product.product_id == line.product_id and product.quantity is not None:
                    product.quantity += line.quantity
        return answer

    # ------------------------------------------------------------------ bookings

    @tool("create")
    def instore_book(self, user_id: UserId, shop_id: ShopId, time: ArrivalTime, customer_count: Count = 1
                     ) -> dict[str, Any] | str:
        """Book a shop (a paid booking). Preconditions: the shop accepts bookings (enable_book); the time is
        not in the past. Postconditions: a booking exists, 'unpaid' if the shop's book_price is positive
        (pay it with pay_instore_book), otherwise 'paid'."""
        target, count, when, now = self.visit(user_id, shop_id, time, customer_count, "bookings")
        created = BookInfo(
            book_id=self.env.new_id(BOOK_PREFIX),
            shop_id=target.shop_id,
            book_time=when,
            create_time=now,
            update_time=now,
            customer_id=self.db.user_id,
            customer_count=count,
            book_price=target.book_price,
            status="unpaid" if target.book_price > 0 else "paid",
        )
        self.db.books[created.book_id] = created
        return self.visit_view(created)

    @tool("write")
    def pay_instore_book(self, book_id: BookId) -> dict[str, Any] | str:
        """Pay an unpaid booking. Precondition: status 'unpaid'. Postcondition: status 'paid'."""
        return self.env.pay(self.book(book_id), "Booking", "book_id")

    @tool("write")
    def instore_cancel_book(self, book_id: BookId) -> dict[str, Any] | str:
        """Cancel a booking. Postcondition: status 'cancelled'."""
        return self.env.cancel(self.book(book_id), "Booking", "book_id", FINAL_STATUSES)

    # ------------------------------------------------------------------ reservations

    @tool("create")
    def instore_reservation(self, user_id: UserId, shop_id: ShopId, time: ArrivalTime, customer_count: Count = 1
                            ) -> dict[str, Any] | str:
        """Reserve a table/slot at a shop (free). Preconditions: the shop accepts reservations
        (enable_reservation); the time is not in the past. Postcondition: a reservation with status
        'unconsumed'."""
        target, count, when, now = self.visit(user_id, shop_id, time, customer_count, "reservations")
        created = ReservationInfo(
            reservation_id=self.env.new_id(RESERVATION_PREFIX),
            shop_id=target.shop_id,
            reservation_time=when,
            create_time=now,
            update_time=now,
            customer_id=self.db.user_id,
            customer_count=count,
            status="unconsumed",
        )
        self.db.reservations[created.reservation_id] = created
        return self.visit_view(created)

    @tool("write")
    def instore_modify_reservation(
        self,
        reservation_id: ReservationId,
        time: Annotated[str, Arg("The new date and time, 'YYYY-MM-DD HH:MM:SS' (not in the past).")],
        customer_count: Annotated[int, Arg("The new number of people; 0 (default) keeps the current one.")] = 0,
    ) -> dict[str, Any] | str:
        """Change a reservation's time and optionally its number of people. Precondition: not consumed or
        cancelled."""
        target = self.reservation(reservation_id)
        if target.status in FINAL_STATUSES:  # VitaBench 2.0's tool refuses it too
            raise ToolError(f"Reservation {target.reservation_id} cannot be modified: its status is {target.status!r}")
        if not isinstance(customer_count, int) or isinstance(customer_count, bool) or customer_count < 0:
            raise ToolError("customer_count must be a non-negative integer (0 keeps the current count)")
        target.reservation_time = self.future_time(time)
        if customer_count:
            target.customer_count = customer_count
        self.env.touch(target)
        return self.visit_view(target)

    @tool("write")
    def instore_cancel_reservation(self, reservation_id: ReservationId) -> dict[str, Any] | str:
        """Cancel a reservation. Precondition: not consumed or cancelled. Postcondition: 'cancelled'."""
        return self.env.cancel(self.reservation(reservation_id), "Reservation", "reservation_id", FINAL_STATUSES)

    # ------------------------------------------------------------------ listings

    @tool()
    def get_instore_orders(self, user_id: UserId) -> Any:
        """List the user's instore orders."""
        self.env.check_user(user_id)
        found = [self.env.order_view(o) for o in self.db.orders.values() if o.order_type == ORDER_TYPE]
        return found or "User has no instore orders"

    @tool()
    def get_instore_reservations(self, user_id: UserId) -> Any:
        """List the user's reservations."""
        self.env.check_user(user_id)
        return [self.visit_view(r) for r in self.db.reservations.values()] or "User has no reservations"

    @tool()
    def get_instore_books(self, user_id: UserId) -> Any:
        """List the user's bookings."""
        self.env.check_user(user_id)
        return [self.visit_view(b) for b in self.db.books.values()] or "User has no bookings"

    @tool()
    def search_instore_book(
        self, user_id: UserId, book_id: Annotated[str | None, Arg("Optional booking ID.")] = None
    ) -> Any:
        """Get one booking by ID, or all the user's bookings when no ID is given."""
        self.env.check_user(user_id)
        if book_id:
            return self.visit_view(self.book(book_id))
        return self.get_instore_books(user_id)

    @tool()
    def search_instore_reservation(
        self, user_id: UserId, reservation_id: Annotated[str | None, Arg("Optional reservation ID.")] = None
    ) -> Any:
        """Get one reservation by ID, or all the user's reservations when no ID is given."""
        self.env.check_user(user_id)
        if reservation_id:
            return self.visit_view(self.reservation(reservation_id))
        return self.get_instore_reservations(user_id)
