"""The in-store tools as the official harness runs them (``--vita-deviation tool-results=official``).

As :mod:`..delivery.official`: each method is one official tool, its checks in their order, its state changes
and its answer text; a failed ``assert`` answers as plain text, a failed lookup as ``"Error: ..."``. Kept from
ours: generated ids, and the catalogue (the official order overwrites the product's stock with the ordered
quantity, an official bug both profiles fix; the order itself reads the same).
"""

from __future__ import annotations

from typing import Any

from ..domains.entities import Order, OrderProduct
from ..domains.instore.models import BookInfo, ReservationInfo, Shop, ShopProduct
from . import record_text as text
from .messages import MessageKey, message
from .shared_tools import OfficialTools, valid_time

_FILE = "instore"


def _plain(tool: str, count: int) -> tuple[MessageKey, ...]:
    """The first ``count`` messages of ``tool`` that have no placeholder, in their order."""
    return tuple(message(_FILE, tool, nth=n) for n in range(count))


#: create_instore_product_order: no user id, another user, no such shop, no such product, a quantity below 1.
CREATE_ORDER = _plain("create_instore_product_order", 5)
#: instore_book: no user id, another user, no such shop, a count below 1, no time, a bad time, no bookings.
BOOK = _plain("instore_book", 7)
#: instore_reservation: no user id, another user, no such shop, a bad time, a count below 1.
RESERVE = _plain("instore_reservation", 5)
#: instore_modify_reservation: no reservation id, a count below 0, no time, a bad time.
MODIFY = _plain("instore_modify_reservation", 4)
MODIFY_FINISHED = message(_FILE, "instore_modify_reservation", "reservation_info.reservation_id",
                          "reservation_info.status")
#: The listings' two user checks: the user id is empty, it is not the user's.
USER_CHECKS = {tool: _plain(tool, 2) for tool in (
    "get_instore_orders", "get_instore_reservations", "get_instore_books", "search_instore_book",
    "search_instore_reservation")}
#: pay_instore_order / _book: no id, not unpaid (saying the id), paid.
PAY = {tool: (message(_FILE, tool), message(_FILE, tool, shown), message(_FILE, tool, nth=1))
       for tool, shown in (("pay_instore_order", "order_id"), ("pay_instore_book", "book_info.book_id"))}
#: instore_cancel_order / _book / _reservation: no id, already cancelled, cancelled (both saying the id).
CANCEL = {tool: (message(_FILE, tool), message(_FILE, tool, shown), message(_FILE, tool, shown, nth=1))
          for tool, shown in (("instore_cancel_order", "order.order_id"), ("instore_cancel_book", "book_info.book_id"),
                              ("instore_cancel_reservation", "reservation_info.reservation_id"))}
PRODUCT_NOT_FOUND = message(_FILE, "_get_shop_product", "product_id")
ORDER_NOT_FOUND = message(_FILE, "_get_instore_order", "order_id")
NOT_AN_INSTORE_ORDER = message(_FILE, "_get_instore_order", "order_id", nth=1)
BOOK_NOT_FOUND = message(_FILE, "_get_book_info", "book_id")
RESERVATION_NOT_FOUND = message(_FILE, "_get_reservation_info", "reservation_id")
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

    def order(self, order_id: str) -> Order:
        return self.typed_order(order_id, "instore", ORDER_NOT_FOUND, NOT_AN_INSTORE_ORDER)

    def book(self, book_id: str) -> BookInfo:
        return self.keyed(self.db.books, book_id, BOOK_NOT_FOUND)

    def reservation(self, reservation_id: str) -> ReservationInfo:
        return self.keyed(self.db.reservations, reservation_id, RESERVATION_NOT_FOUND)

    def _pay(self, record: Any, record_id: str, tool: str) -> str:
        _, not_unpaid, paid = PAY[tool]
        if record.status != "unpaid":
            return self.say(not_unpaid, record_id)
        self.env.touch(record, "paid")
        return self.say(paid)

    def _cancel(self, record: Any, record_id: str, tool: str) -> str:
        _, already, cancelled = CANCEL[tool]
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
        _, _, no_shop, no_product, bad_quantity = CREATE_ORDER
        if problem := self.user_problem(user_id, CREATE_ORDER):
            return problem
        if shop_id not in self.db.shops:
            return self.say(no_shop)
        if product_id not in [p.product_id for p in self.db.shops[shop_id].products]:
            return self.say(no_product)
        if not quantity > 0:
            return self.say(bad_quantity)
        product = self.catalogue_product("shops", product_id, PRODUCT_NOT_FOUND)
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
            return self.say(PAY["pay_instore_order"][0])
        return self._pay(self.order(order_id), order_id, "pay_instore_order")

    def instore_cancel_order(self, order_id: str) -> str:
        if not order_id:
            return self.say(CANCEL["instore_cancel_order"][0])
        target = self.order(order_id)
        return self._cancel(target, target.order_id, "instore_cancel_order")

    def instore_book(self, user_id: str, shop_id: str, time: str, customer_count: Any) -> str:
        _, _, no_shop, bad_count, no_time, bad_time, not_offered = BOOK
        if problem := self.user_problem(user_id, BOOK):
            return problem
        if shop_id not in self.db.shops:
            return self.say(no_shop)
        if not customer_count > 0:
            return self.say(bad_count)
        if not time:
            return self.say(no_time)
        if not valid_time(time):
            return self.say(bad_time)
        shop = self.db.shops[shop_id]
        if not shop.enable_book:
            return self.say(not_offered)
        env = self.env
        book = BookInfo(book_id=env.new_id("BK"), shop_id=shop_id, book_time=time, customer_count=customer_count,
                        book_price=shop.book_price, customer_id=user_id,
                        status="unpaid" if shop.book_price > 0 else "paid", update_time=env.now_text())
        self.db.books[book.book_id] = book
        return book_repr(book)

    def pay_instore_book(self, book_id: str) -> str:
        if not book_id:
            return self.say(PAY["pay_instore_book"][0])
        book = self.book(book_id)
        return self._pay(book, book.book_id, "pay_instore_book")

    def instore_cancel_book(self, book_id: str) -> str:
        if not book_id:
            return self.say(CANCEL["instore_cancel_book"][0])
        book = self.book(book_id)
        return self._cancel(book, book.book_id, "instore_cancel_book")

    def instore_reservation(self, user_id: str, shop_id: str, time: str, customer_count: Any) -> str:
        _, _, no_shop, bad_time, bad_count = RESERVE
        if problem := self.user_problem(user_id, RESERVE):
            return problem
        if shop_id not in self.db.shops:
            return self.say(no_shop)
        if not valid_time(time):
            return self.say(bad_time)
        if not customer_count > 0:
            return self.say(bad_count)
        env = self.env
        reservation = ReservationInfo(reservation_id=env.new_id("RS"), shop_id=shop_id, reservation_time=time,
                                      customer_id=user_id, customer_count=customer_count, status="unconsumed",
                                      update_time=env.now_text())
        self.db.reservations[reservation.reservation_id] = reservation
        return reservation_repr(reservation)

    def instore_modify_reservation(self, reservation_id: str, time: str, customer_count: Any) -> str:
        no_id, bad_count, no_time, bad_time = MODIFY
        if not reservation_id:
            return self.say(no_id)
        reservation = self.reservation(reservation_id)
        if reservation.status in ("consumed", "cancelled"):
            return self.say(MODIFY_FINISHED, reservation.reservation_id, reservation.status)
        if not customer_count >= 0:
            return self.say(bad_count)
        if not time:
            return self.say(no_time)
        if not valid_time(time):
            return self.say(bad_time)
        reservation.reservation_time, reservation.customer_count = time, customer_count
        reservation.update_time = self.env.now_text()
        return reservation_repr(reservation)

    def instore_cancel_reservation(self, reservation_id: str) -> str:
        if not reservation_id:
            return self.say(CANCEL["instore_cancel_reservation"][0])
        reservation = self.reservation(reservation_id)
        return self._cancel(reservation, reservation.reservation_id, "instore_cancel_reservation")

    def get_instore_orders(self, user_id: str) -> str:
        if problem := self.user_problem(user_id, USER_CHECKS["get_instore_orders"]):
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
        if problem := self.user_problem(user_id, USER_CHECKS["search_instore_book"]):
            return problem
        if book_id is None:
            return self._visits(user_id, self.db.books.values(), book_repr, SEARCH_NO_BOOKS)
        book = self.book(book_id)
        if book.customer_id != user_id:
            return self.say(NOT_THE_USERS_BOOK, book_id, user_id)
        return book_repr(book)

    def search_instore_reservation(self, user_id: str, reservation_id: str | None) -> str:
        if problem := self.user_problem(user_id, USER_CHECKS["search_instore_reservation"]):
            return problem
        if reservation_id is None:
            return self._visits(user_id, self.db.reservations.values(), reservation_repr, SEARCH_NO_RESERVATIONS)
        reservation = self.reservation(reservation_id)
        if reservation.customer_id != user_id:
            return self.say(NOT_THE_USERS_RESERVATION, reservation_id, user_id)
        return reservation_repr(reservation)
