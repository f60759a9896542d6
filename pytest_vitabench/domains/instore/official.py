"""The in-store tools as the official harness runs them (``--vita-tool-results official``).

As :mod:`..delivery.official`: each method is one official tool, its checks in their order, its state changes
and its answer text; a failed ``assert`` answers as plain text, a failed lookup as ``"Error: ..."``. Kept from
ours: generated ids, and the catalogue (the official order overwrites the product's stock with the ordered
quantity, a bug listed in REFERENCE.md §7; the order itself reads the same).
"""

from __future__ import annotations

from typing import Any

from ...official_messages import MessageKey, message
from .. import official_text as text
from ..base import ToolError
from ..entities import Order, OrderProduct, catalogue_product
from ..official_shared import OfficialTools, valid_time
from .models import BookInfo, ReservationInfo, Shop, ShopProduct

_FILE = "instore"
#: Per tool, its two user checks: the user id is empty, it is not the user's.
USER_CHECKS = {tool: (message(_FILE, tool), message(_FILE, tool, nth=1)) for tool in (
    "create_instore_product_order", "instore_book", "instore_reservation", "get_instore_orders",
    "get_instore_reservations", "get_instore_books", "search_instore_book", "search_instore_reservation")}
PRODUCT_NOT_FOUND = message(_FILE, "_get_shop_product", "product_id")
ORDER_NOT_FOUND = message(_FILE, "_get_instore_order", "order_id")
NOT_AN_INSTORE_ORDER = message(_FILE, "_get_instore_order", "order_id", nth=1)
BOOK_NOT_FOUND = message(_FILE, "_get_book_info", "book_id")
RESERVATION_NOT_FOUND = message(_FILE, "_get_reservation_info", "reservation_id")
ORDER_NO_SHOP = message(_FILE, "create_instore_product_order", nth=2)
ORDER_NO_PRODUCT = message(_FILE, "create_instore_product_order", nth=3)
ORDER_BAD_QUANTITY = message(_FILE, "create_instore_product_order", nth=4)
PAY_NO_ORDER_ID = message(_FILE, "pay_instore_order")
PAY_NOT_UNPAID = message(_FILE, "pay_instore_order", "order_id")
PAID = message(_FILE, "pay_instore_order", nth=1)
CANCEL_NO_ORDER_ID = message(_FILE, "instore_cancel_order")
ORDER_ALREADY_CANCELLED = message(_FILE, "instore_cancel_order", "order.order_id")
ORDER_CANCELLED = message(_FILE, "instore_cancel_order", "order.order_id", nth=1)
BOOK_NO_SHOP = message(_FILE, "instore_book", nth=2)
BOOK_BAD_COUNT = message(_FILE, "instore_book", nth=3)
BOOK_NO_TIME = message(_FILE, "instore_book", nth=4)
BOOK_BAD_TIME = message(_FILE, "instore_book", nth=5)
BOOK_NOT_OFFERED = message(_FILE, "instore_book", nth=6)
PAY_BOOK_NO_ID = message(_FILE, "pay_instore_book")
BOOK_PAID = message(_FILE, "pay_instore_book", nth=1)
BOOK_NOT_UNPAID = message(_FILE, "pay_instore_book", "book_info.book_id")
CANCEL_BOOK_NO_ID = message(_FILE, "instore_cancel_book")
BOOK_ALREADY_CANCELLED = message(_FILE, "instore_cancel_book", "book_info.book_id")
BOOK_CANCELLED = message(_FILE, "instore_cancel_book", "book_info.book_id", nth=1)
RESERVE_NO_SHOP = message(_FILE, "instore_reservation", nth=2)
RESERVE_BAD_TIME = message(_FILE, "instore_reservation", nth=3)
RESERVE_BAD_COUNT = message(_FILE, "instore_reservation", nth=4)
MODIFY_NO_ID = message(_FILE, "instore_modify_reservation")
MODIFY_FINISHED = message(_FILE, "instore_modify_reservation", "reservation_info.reservation_id",
                          "reservation_info.status")
MODIFY_BAD_COUNT = message(_FILE, "instore_modify_reservation", nth=1)
MODIFY_NO_TIME = message(_FILE, "instore_modify_reservation", nth=2)
MODIFY_BAD_TIME = message(_FILE, "instore_modify_reservation", nth=3)
CANCEL_RESERVATION_NO_ID = message(_FILE, "instore_cancel_reservation")
RESERVATION_ALREADY_CANCELLED = message(_FILE, "instore_cancel_reservation", "reservation_info.reservation_id")
RESERVATION_CANCELLED = message(_FILE, "instore_cancel_reservation", "reservation_info.reservation_id", nth=1)
NO_ORDERS = message(_FILE, "get_instore_orders", "user_id")
NO_RESERVATIONS = message(_FILE, "get_instore_reservations", "user_id")
NO_BOOKS = message(_FILE, "get_instore_books", "user_id")
SEARCH_NO_BOOKS = message(_FILE, "search_instore_book", "user_id")
NOT_THE_USERS_BOOK = message(_FILE, "search_instore_book", "book_id", "user_id")
SEARCH_NO_RESERVATIONS = message(_FILE, "search_instore_reservation", "user_id")
NOT_THE_USERS_RESERVATION = message(_FILE, "search_instore_reservation", "reservation_id", "user_id")


def book_repr(book: BookInfo) -> str:
    # The official form has no space after the first comma and no closing parenthesis.
    return (f"BookInfo(book_id={book.book_id},shop_id={book.shop_id}, book_time={book.book_time}, "
            f"customer_id={book.customer_id}, customer_count={book.customer_count}, "
            f"book_price={text.number(book.book_price)}, status={book.status}")


def reservation_repr(reservation: ReservationInfo) -> str:
    return (f"ReservationInfo(reservation_id={reservation.reservation_id},shop_id={reservation.shop_id}, "
            f"reservation_time={reservation.reservation_time}, customer_id={reservation.customer_id}, "
            f"customer_count={reservation.customer_count}, status={reservation.status}")


class OfficialInstore(OfficialTools):
    """The official behaviour of each in-store tool, over our environment and database."""

    def product(self, product_id: str) -> ShopProduct:
        product = catalogue_product(self.db, "shops", product_id)
        if product is None:
            raise ToolError(self.say(PRODUCT_NOT_FOUND, product_id))
        return product

    def order(self, order_id: str) -> Order:
        if order_id not in self.db.orders:
            raise ToolError(self.say(ORDER_NOT_FOUND, order_id))
        found = self.db.orders[order_id]
        if found.order_type != "instore":
            raise ToolError(self.say(NOT_AN_INSTORE_ORDER, order_id))
        return found

    def book(self, book_id: str) -> BookInfo:
        if book_id not in self.db.books:
            raise ToolError(self.say(BOOK_NOT_FOUND, book_id))
        return self.db.books[book_id]

    def reservation(self, reservation_id: str) -> ReservationInfo:
        if reservation_id not in self.db.reservations:
            raise ToolError(self.say(RESERVATION_NOT_FOUND, reservation_id))
        return self.db.reservations[reservation_id]

    def _pay(self, record: Any, record_id: str, not_unpaid: MessageKey, paid: MessageKey) -> str:
        if record.status != "unpaid":
            return self.say(not_unpaid, record_id)
        self.env.touch(record, "paid")
        return self.say(paid)

    def _cancel(self, record: Any, record_id: str, already: MessageKey, cancelled: MessageKey) -> str:
        if record.status == "cancelled":
            return self.say(already, record_id)
        self.env.touch(record, "cancelled")
        return self.say(cancelled, record_id)

    # ---- the tools

    def shop_search(self, ranked: list[Shop]) -> str:
        return "\n".join(text.shop_str(s) for s in ranked)

    def product_search(self, ranked: list[ShopProduct]) -> str:
        return "\n".join(text.shop_product_repr(p) for p in ranked)

    def create_instore_product_order(self, user_id: str, shop_id: str, product_id: str, quantity: Any) -> str:
        problem = self.user_problem(user_id, USER_CHECKS["create_instore_product_order"])
        if problem:
            return problem
        if shop_id not in self.db.shops:
            return self.say(ORDER_NO_SHOP)
        if product_id not in [p.product_id for p in self.db.shops[shop_id].products]:
            return self.say(ORDER_NO_PRODUCT)
        if not quantity > 0:
            return self.say(ORDER_BAD_QUANTITY)
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
            return self.say(PAY_NO_ORDER_ID)
        return self._pay(self.order(order_id), order_id, PAY_NOT_UNPAID, PAID)

    def instore_cancel_order(self, order_id: str) -> str:
        if not order_id:
            return self.say(CANCEL_NO_ORDER_ID)
        target = self.order(order_id)
        return self._cancel(target, target.order_id, ORDER_ALREADY_CANCELLED, ORDER_CANCELLED)

    def instore_book(self, user_id: str, shop_id: str, time: str, customer_count: Any) -> str:
        problem = self.user_problem(user_id, USER_CHECKS["instore_book"])
        if problem:
            return problem
        if shop_id not in self.db.shops:
            return self.say(BOOK_NO_SHOP)
        if not customer_count > 0:
            return self.say(BOOK_BAD_COUNT)
        if not time:
            return self.say(BOOK_NO_TIME)
        if not valid_time(time):
            return self.say(BOOK_BAD_TIME)
        shop = self.db.shops[shop_id]
        if not shop.enable_book:
            return self.say(BOOK_NOT_OFFERED)
        env = self.env
        book = BookInfo(book_id=env.new_id("BK"), shop_id=shop_id, book_time=time, customer_count=customer_count,
                        book_price=shop.book_price, customer_id=user_id,
                        status="unpaid" if shop.book_price > 0 else "paid", update_time=env.now_text())
        self.db.books[book.book_id] = book
        return book_repr(book)

    def pay_instore_book(self, book_id: str) -> str:
        if not book_id:
            return self.say(PAY_BOOK_NO_ID)
        book = self.book(book_id)
        return self._pay(book, book.book_id, BOOK_NOT_UNPAID, BOOK_PAID)

    def instore_cancel_book(self, book_id: str) -> str:
        if not book_id:
            return self.say(CANCEL_BOOK_NO_ID)
        book = self.book(book_id)
        return self._cancel(book, book.book_id, BOOK_ALREADY_CANCELLED, BOOK_CANCELLED)

    def instore_reservation(self, user_id: str, shop_id: str, time: str, customer_count: Any) -> str:
        problem = self.user_problem(user_id, USER_CHECKS["instore_reservation"])
        if problem:
            return problem
        if shop_id not in self.db.shops:
            return self.say(RESERVE_NO_SHOP)
        if not valid_time(time):
            return self.say(RESERVE_BAD_TIME)
        if not customer_count > 0:
            return self.say(RESERVE_BAD_COUNT)
        env = self.env
        reservation = ReservationInfo(reservation_id=env.new_id("RS"), shop_id=shop_id, reservation_time=time,
                                      customer_id=user_id, customer_count=customer_count, status="unconsumed",
                                      update_time=env.now_text())
        self.db.reservations[reservation.reservation_id] = reservation
        return reservation_repr(reservation)

    def instore_modify_reservation(self, reservation_id: str, time: str, customer_count: Any) -> str:
        if not reservation_id:
            return self.say(MODIFY_NO_ID)
        reservation = self.reservation(reservation_id)
        if reservation.status in ("consumed", "cancelled"):
            return self.say(MODIFY_FINISHED, reservation.reservation_id, reservation.status)
        if not customer_count >= 0:
            return self.say(MODIFY_BAD_COUNT)
        if not time:
            return self.say(MODIFY_NO_TIME)
        if not valid_time(time):
            return self.say(MODIFY_BAD_TIME)
        reservation.reservation_time, reservation.customer_count = time, customer_count
        reservation.update_time = self.env.now_text()
        return reservation_repr(reservation)

    def instore_cancel_reservation(self, reservation_id: str) -> str:
        if not reservation_id:
            return self.say(CANCEL_RESERVATION_NO_ID)
        reservation = self.reservation(reservation_id)
        return self._cancel(reservation, reservation.reservation_id, RESERVATION_ALREADY_CANCELLED,
                            RESERVATION_CANCELLED)

    def get_instore_orders(self, user_id: str) -> str:
        problem = self.user_problem(user_id, USER_CHECKS["get_instore_orders"])
        if problem:
            return problem
        found = [o for o in self.db.orders.values() if o.order_type == "instore" and o.user_id == user_id]
        return "\n".join(self.order_repr(o) for o in found) if found else self.say(NO_ORDERS, user_id)

    def _visits(self, user_id: str, items: Any, render: Any, none: MessageKey) -> str:
        found = [item for item in items if item.customer_id == user_id]
        return "\n".join(render(i) for i in found) if found else self.say(none, user_id)

    def get_instore_reservations(self, user_id: str) -> str:
        problem = self.user_problem(user_id, USER_CHECKS["get_instore_reservations"])
        return problem or self._visits(user_id, self.db.reservations.values(), reservation_repr, NO_RESERVATIONS)

    def get_instore_books(self, user_id: str) -> str:
        problem = self.user_problem(user_id, USER_CHECKS["get_instore_books"])
        return problem or self._visits(user_id, self.db.books.values(), book_repr, NO_BOOKS)

    def search_instore_book(self, user_id: str, book_id: str | None) -> str:
        problem = self.user_problem(user_id, USER_CHECKS["search_instore_book"])
        if problem:
            return problem
        if book_id is None:
            return self._visits(user_id, self.db.books.values(), book_repr, SEARCH_NO_BOOKS)
        book = self.book(book_id)
        if book.customer_id != user_id:
            return self.say(NOT_THE_USERS_BOOK, book_id, user_id)
        return book_repr(book)

    def search_instore_reservation(self, user_id: str, reservation_id: str | None) -> str:
        problem = self.user_problem(user_id, USER_CHECKS["search_instore_reservation"])
        if problem:
            return problem
        if reservation_id is None:
            return self._visits(user_id, self.db.reservations.values(), reservation_repr, SEARCH_NO_RESERVATIONS)
        reservation = self.reservation(reservation_id)
        if reservation.customer_id != user_id:
            return self.say(NOT_THE_USERS_RESERVATION, reservation_id, user_id)
        return reservation_repr(reservation)
