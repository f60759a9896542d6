"""The food-delivery database: stores and their products (a delivery subtask's ``environment``)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, field_validator, model_validator

from ..entities import DomainDB, Location, TaggedEntity, as_list


def shipping_minutes(distance: float) -> int:
    """Delivery minutes for a distance in metres (VitaBench 2.0's linear formula)."""
    return round(25.00 + int(distance) * 0.006510)


class StoreProduct(TaggedEntity):
    """A dish in a store's catalogue. ``attributes`` are the selectable options (spice level, ...)."""

    VISIBLE: ClassVar[tuple[str, ...]] = (
        "product_id",
        "name",
        "price",
        "store_id",
        "store_name",
        "tags",
        "attributes",
        "quantity",
    )

    product_id: str
    name: str = ""
    price: float = 0.0
    # None: the catalogue states no stock (VitaBench 1.0 data); the quantity is then unlimited.
    quantity: int | None = None
    store_id: str = ""
    store_name: str = ""
    attributes: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)

    @field_validator("attributes", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return as_list(value)


class Store(TaggedEntity):
    """A delivery store."""

    store_id: str = ""
    name: str = ""
    score: float | None = None
    location: Location | None = None
    tags: list[str] = Field(default_factory=list)
    products: list[StoreProduct] = Field(default_factory=list)


class DeliveryDB(DomainDB):
    """The delivery environment dict: ``stores`` plus the common fields."""

    stores: dict[str, Store] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _fill_store_ids(self) -> DeliveryDB:
        # The dict key is the entity id; products inherit their store's id and name when omitted.
        for key, store in self.stores.items():
            store.store_id = store.store_id or key
            for product in store.products:
                product.store_id = product.store_id or store.store_id
                product.store_name = product.store_name or store.name
        return self
