"""The in-store tools as the official harness runs them (``--vita-tool-results official``).

As :mod:`..delivery.official`: each method is one official tool, its checks in their order, its state changes
and its answer text; a failed ``assert`` answers as plain text, a failed lookup as ``"Error: ..."``. Kept from
ours: generated ids, and the catalogue (the official order overwrites the product's stock with the ordered
quantity, a bug listed in REFERENCE.md §7; the order itself reads the same).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import official_text as text
from ..base import ToolError
from ..clock import TIME_FORMAT
from ..entities import Order, OrderProduct
from .models import BookInfo, ReservationInfo, Shop, ShopProduct

if TYPE_CHECKING:
    from ..environment import DomainEnvironment


def book_repr(book: BookInfo) -> str:
    # The official form has no space after the first comma and no closing parenthesis.
    return (f"BookInfo(book_id={book.book_id},shop_id={book.shop_id}, book_time={book.book_time}, "
            f"customer_id={book.customer_id}, customer_count={book.customer_count}, "
            f"book_price={text.number(book.book_price)}, status={book.status}")


def reservation_repr(reservation: ReservationInfo) -> str:
    return (f"ReservationInfo(reservation_id={reservation.reservation_id},shop_id={reservation.shop_id}, "
            f"reservation_time={reservation.reservation_time}, customer_id={reservation.customer_id}, "
            f"customer_count={reservation.customer_count}, status={reservation.status}")


def _valid_time(value: Any) -> bool:
    try:
        datetime.strptime(str(value), TIME_FORMAT)
    except ValueError:
        return False
    return True


class OfficialInstore:
    """The official behaviour of each in-store tool, over our environment and database."""

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

    def product(self, product_id: str) -> ShopProduct:
        for shop in self.db.shops.values():
            for product in shop.products:
                if product.product_id == product_id:
                    return product
        raise ToolError(f"Product {product_id} does not exist")

    def order(self, order_id: str) -> Order:
        if order_id not in self.db.orders:
            raise ToolError(f"Order {order_id} not found")
        found = self.db.orders[order_id]
        if found.order_type != "instore":
            raise ToolError(f"Order {order_id} is not an instore order")
        return found

    def book(self, book_id: str) -> BookInfo:
        if book_id not in self.db.books:
            raise ToolError(f"BookInfo {book_id} not found")
        return self.db.books[book_id]

    def reservation(self, reservation_id: str) -> ReservationInfo:
        if reservation_id not in self.db.reservations:
            raise ToolError(f"ReservationInfo {reservation_id} not found")
        return self.db.reservations[reservation_id]

    def order_repr(self, order: Order) -> str:
        return text.order_text(self.db, order)

    # ---- the tools

    def shop_search(self, ranked: list[Shop]) -> str:
        return "\n".join(text.shop_str(s) for s in ranked)

    def product_search(self, ranked: list[ShopProduct]) -> str:
        return "\n".join(text.shop_product_repr(p) for p in ranked)

    def create_instore_product_order(self, user_id: str, shop_id: str, product_id: str, quantity: Any) -> str:
        problem = self._user_problem(user_id)
        if problem:
            return problem
        if shop_id not in self.db.shops:
            return "Shop does not exist"
        if product_id not in [p.product_id for p in self.db.shops[shop_id].products]:
            return "Product does not exist"
        if not quantity > 0:
            return "Quantity must be greater than 0"
        product = self.product(product_id)
        env = self.env
        now = env.now_text()
        created = Order(order_id=env.new_id("OI"), order_type="instore", user_id=user_id, store_id=shop_id,
                        total_price=quantity * product.price, create_time=now, update_time=now, status="unpaid",
                        products=[OrderProduct(product_id=product.product_id, name=product.name, price=product.price,
                                               quantity=quantity)])
        self.db.orders[created.order_id] = created
        return self.order_repr(created)

    def pay_instore_order(self, order_id: str) -> str:
        if not order_id:
            return "Order ID cannot be empty"
        target = self.order(order_id)
        if target.status != "unpaid":
            return f"Order {order_id} is not in `unpaid` status."
        target.status, target.update_time = "paid", self.env.now_text()
        return "Payment successful"

    def instore_cancel_order(self, order_id: str) -> str:
        if not order_id:
            return "Order ID cannot be empty"
        target = self.order(order_id)
        if target.status == "cancelled":
            return f"Order {target.order_id} is already cancelled."
        target.status, target.update_time = "cancelled", self.env.now_text()
        return f"Order {target.order_id} is cancelled."

    def instore_book(self, user_id: str, shop_id: str, time: str, customer_count: Any) -> str:
        problem = self._user_problem(user_id)
        if problem:
            return problem
        if shop_id not in self.db.shops:
            return "Shop does not exist"
        if not customer_count > 0:
            return "Number of customers for table booking must be greater than 0"
        if not time:
            return "Table booking time cannot be empty"
        if not _valid_time(time):
            return "Table booking time format is incorrect, correct format is %Y-%m-%d %H:%M:%S"
        shop = self.db.shops[shop_id]
        if not shop.enable_book:
            return "Shop does not support table booking"
        env = self.env
        book = BookInfo(book_id=env.new_id("BK"), shop_id=shop_id, book_time=time, customer_count=customer_count,
                        book_price=shop.book_price, customer_id=user_id,
                        status="unpaid" if shop.book_price > 0 else "paid", update_time=env.now_text())
        self.db.books[book.book_id] = book
        return book_repr(book)

    def pay_instore_book(self, book_id: str) -> str:
        if not book_id:
            return "Booking ID cannot be empty"
        book = self.book(book_id)
        if book.status != "unpaid":
            return f"BookInfo {book.book_id} is not in `unpaid` status."
        book.status, book.update_time = "paid", self.env.now_text()
        return "Payment successful"

    def instore_cancel_book(self, book_id: str) -> str:
        if not book_id:
            return "Booking ID cannot be empty"
        book = self.book(book_id)
        if book.status == "cancelled":
            return f"BookInfo {book.book_id} is already cancelled."
        book.status, book.update_time = "cancelled", self.env.now_text()
        return f"BookInfo {book.book_id} is cancelled."

    def instore_reservation(self, user_id: str, shop_id: str, time: str, customer_count: Any) -> str:
        problem = self._user_problem(user_id)
        if problem:
            return problem
        if shop_id not in self.db.shops:
            return "Shop does not exist"
        if not _valid_time(time):
            return "Reservation time format is incorrect, correct format is %Y-%m-%d %H:%M:%S"
        if not customer_count > 0:
            return "Number of customers for reservation must be greater than 0"
        env = self.env
        reservation = ReservationInfo(reservation_id=env.new_id("RS"), shop_id=shop_id, reservation_time=time,
                                      customer_id=user_id, customer_count=customer_count, status="unconsumed",
                                      update_time=env.now_text())
        self.db.reservations[reservation.reservation_id] = reservation
        return reservation_repr(reservation)

    def instore_modify_reservation(self, reservation_id: str, time: str, customer_count: Any) -> str:
        if not reservation_id:
            return "Reservation ID cannot be empty"
        reservation = self.reservation(reservation_id)
        if reservation.status in ("consumed", "cancelled"):
            return f"ReservationInfo {reservation.reservation_id} is already {reservation.status}."
        if not customer_count >= 0:
            return "Number of customers for reservation must be greater than or equal to 0"
        if not time:
            return "Reservation time cannot be empty"
        if not _valid_time(time):
            return "Reservation time format is incorrect, correct format is %Y-%m-%d %H:%M:%S"
        reservation.reservation_time, reservation.customer_count = time, customer_count
        reservation.update_time = self.env.now_text()
        return reservation_repr(reservation)

    def instore_cancel_reservation(self, reservation_id: str) -> str:
        if not reservation_id:
            return "Reservation ID cannot be empty"
        reservation = self.reservation(reservation_id)
        if reservation.status == "cancelled":
            return f"ReservationInfo {reservation.reservation_id} is already cancelled."
        reservation.status, reservation.update_time = "cancelled", self.env.now_text()
        return f"ReservationInfo {reservation.reservation_id} is cancelled."

    def get_instore_orders(self, user_id: str) -> str:
        problem = self._user_problem(user_id)
        if problem:
            return problem
        found = [o for o in self.db.orders.values() if o.order_type == "instore" and o.user_id == user_id]
        return "\n".join(self.order_repr(o) for o in found) if found else f"User {user_id} has no order information."

    def _visits(self, user_id: str, items: Any, render: Any, what: str) -> str:
        found = [item for item in items if item.customer_id == user_id]
        return "\n".join(render(i) for i in found) if found else f"User {user_id} has no {what} information."

    def get_instore_reservations(self, user_id: str) -> str:
        problem = self._user_problem(user_id)
        return problem or self._visits(user_id, self.db.reservations.values(), reservation_repr, "reservation")

    def get_instore_books(self, user_id: str) -> str:
        problem = self._user_problem(user_id)
        return problem or self._visits(user_id, self.db.books.values(), book_repr, "book")

    def search_instore_book(self, user_id: str, book_id: str | None) -> str:
        problem = self._user_problem(user_id)
        if problem:
            return problem
        if book_id is None:
            return self._visits(user_id, self.db.books.values(), book_repr, "book")
        book = self.book(book_id)
        if book.customer_id != user_id:
            return f"BookInfo {book_id} is not belong to user {user_id}."
        return book_repr(book)

    def search_instore_reservation(self, user_id: str, reservation_id: str | None) -> str:
        problem = self._user_problem(user_id)
        if problem:
            return problem
        if reservation_id is None:
            return self._visits(user_id, self.db.reservations.values(), reservation_repr, "reservation")
        reservation = self.reservation(reservation_id)
        if reservation.customer_id != user_id:
            return f"ReservationInfo {reservation_id} is not belong to user {user_id}."
        return reservation_repr(reservation)
