"""Reading VitaBench 1.0 required orders: every record kind with its own fields, or why not."""

from __future__ import annotations

import pytest

from pytest_vitabench.suite.required_orders import UninterpretableOrder, read_required_order

DELIVERY = {"order_id": "T1", "order_type": "delivery", "store_id": "S1", "note": "no onions",
            "location": {"address": "1 Home Road", "longitude": 120.0, "latitude": 30.0}, "status": "processed",
            "products": [{"product_id": "P1", "quantity": 2, "attributes": "Hot"}]}


def test_delivery_order_keeps_products_options_and_address():
    order = read_required_order(DELIVERY)
    assert order.kind == "delivery" and order.entity_id == "S1" and not order.existing
    assert [(p.product_id, p.quantity, p.attributes) for p in order.products] == [("P1", 2, "Hot")]
    assert order.address == "1 Home Road" and order.coordinates == (120.0, 30.0) and order.note == "no onions"


def test_instore_product_order_and_ota_orders():
    instore = read_required_order({"order_type": "instore", "store_id": "SH1", "products": [{"product_id": "X"}]})
    assert instore.kind == "instore" and instore.products[0].quantity is None and instore.address == ""
    train = read_required_order({"order_type": "train", "store_id": "T1",
                                 "products": [{"product_id": "T1_2", "quantity": 2, "date": "2025-04-07 00:00:00"}]})
    assert train.kind == "train" and train.products[0].date == "2025-04-07"


def test_reservation_and_booking_have_no_order_type():
    reservation = read_required_order({"reservation_id": "R1", "shop_id": "SH1", "reservation_time": "2025-05-10 18:00",
                                       "customer_count": 4, "status": "unconsumed"})
    assert (reservation.kind, reservation.entity_id, reservation.time, reservation.customer_count) == (
        "reservation", "SH1", "2025-05-10 18:00", 4)
    book = read_required_order({"book_id": "B1", "shop_id": "SH3", "book_time": "2025-05-09 20:00:00",
                                "customer_count": "5"})
    assert book.kind == "book" and book.customer_count == 5


def test_a_record_naming_an_existing_order_with_its_products_is_a_change_to_it():
    initial = {"T1": {"order_id": "T1", "status": "paid", "products": [{"product_id": "P1"}]}}
    assert read_required_order({**DELIVERY, "status": "cancelled"}, initial).existing
    other = {**DELIVERY, "products": [{"product_id": "P9", "quantity": 1}]}
    assert not read_required_order(other, initial).existing


@pytest.mark.parametrize("raw, fragment", [
    ("T1", "must be an object, got str"),
    ({"store_id": "S1", "products": []}, "neither a reservation"),
    ({"order_type": "dine-in", "store_id": "S1", "products": [{"product_id": "P"}]}, "unknown order_type 'dine-in'"),
    ({"order_type": "hotel", "products": [{"product_id": "P"}]}, "names no store_id"),
    ({"order_type": "delivery", "store_id": "S1", "products": []}, "lists no products"),
    ({"order_type": "delivery", "store_id": "S1", "products": [{"order_id": "X"}]}, "products[0] has no product_id"),
    ({"order_type": "delivery", "store_id": "S1", "products": [{"product_id": "P", "quantity": "two"}]},
     "quantity 'two' is not a whole number"),
    ({"order_type": "delivery", "store_id": "S1", "products": [{"product_id": "P", "quantity": 1.5}]},
     "not a whole number"),
    ({"reservation_id": "R1", "reservation_time": "2025-01-01 10:00"}, "names no shop_id"),
    ({"reservation_id": "R1", "shop_id": "SH1"}, "has no reservation_time"),
])
def test_uninterpretable_records_say_why(raw, fragment):
    with pytest.raises(UninterpretableOrder, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        read_required_order(raw)
