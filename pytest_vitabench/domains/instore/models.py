"""The in-store database: shops, their products, table reservations and paid bookings (an instore subtask's
``environment``)."""

from __future__ import annotations

from pydantic import Field, model_validator

from ..entities import DomainDB, Entity, Location, TaggedEntity

VisitStatus = str  # unpaid | paid | unconsumed | consumed | cancelled


class ShopProduct(TaggedEntity):
    """A product or set meal sold in a shop; ``quantity`` is the stock left."""

    product_id: str
    name: str = ""
    price: float = 0.0
    # None: the catalogue states no stock; the quantity is then unlimited.
    quantity: int | None = None
    shop_id: str = ""
    shop_name: str = ""
    tags: list[str] = Field(default_factory=list)


class Shop(TaggedEntity):
    """An in-store venue (restaurant, salon, ...)."""

    shop_id: str = ""
    shop_name: str = ""
    score: float | None = None
    location: Location | None = None
    tags: list[str] = Field(default_factory=list)
    enable_book: bool = False
    book_price: float = 0.0
    enable_reservation: bool = False
    products: list[ShopProduct] = Field(default_factory=list)


class ReservationInfo(Entity):
    """A free table reservation (status ``unconsumed`` until used)."""

    reservation_id: str
    shop_id: str
    reservation_time: str
    create_time: str | None = None
    update_time: str = ""
    customer_id: str = ""
    customer_count: int = 1
    status: VisitStatus = "unconsumed"


class BookInfo(Entity):
    """A booking, paid when the shop charges ``book_price``."""

    book_id: str
    shop_id: str
    book_time: str
    create_time: str | None = None
    update_time: str = ""
    customer_id: str = ""
    customer_count: int = 1
    book_price: float = 0.0
    status: VisitStatus = "unpaid"


class InStoreDB(DomainDB):
    """The instore environment dict: ``shops``, ``reservations``, ``books`` plus the common fields."""

    shops: dict[str, Shop] = Field(default_factory=dict)
    reservations: dict[str, ReservationInfo] = Field(default_factory=dict)
    books: dict[str, BookInfo] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _fill_shop_ids(self) -> InStoreDB:
        # The dict key is the entity id; products inherit their shop's id and name when omitted.
        for key, shop in self.shops.items():
            shop.shop_id = shop.shop_id or key
            for product in shop.products:
                product.shop_id = product.shop_id or shop.shop_id
                product.shop_name = product.shop_name or shop.shop_name
        return self
