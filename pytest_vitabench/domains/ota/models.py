"""The travel (``ota``) database: hotels, attractions, flights, trains and taxis (the containers of an ``ota``
subtask's ``environment``).

Every entity keeps unknown keys (``extra="allow"``, via :class:`~..entities.Entity`) because the released data
carries answer-leaking markers (``hotel_type``, ``flight_type``, ``distraction_reason``, ...). They are
accepted and never emitted: tool outputs show declared fields only (see :class:`~..entities.Entity`).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from ..entities import DomainDB, Entity, Location, TaggedEntity


class _Product(Entity):
    """One bookable offer: a room night, a ticket, a seat class on one date, a taxi ride."""

    product_id: str
    price: float = 0.0
    # Remaining inventory; None means the data states none, so it is unlimited.
    quantity: int | None = None
    date: str = ""


class HotelProduct(_Product):
    """One room type on one night; ``product_id`` is the ``room_id`` the agent books."""

    VISIBLE: ClassVar[tuple[str, ...]] = ("product_id", "room_type", "date", "price", "quantity")

    room_type: str = ""


class AttractionProduct(_Product):
    VISIBLE: ClassVar[tuple[str, ...]] = ("product_id", "ticket_type", "date", "price", "quantity")

    ticket_type: str = ""


class SeatProduct(_Product):
    """A seat class of a flight or a train on one date."""

    VISIBLE: ClassVar[tuple[str, ...]] = ("product_id", "seat_type", "date", "price", "quantity")

    seat_type: str = ""


class TaxiProduct(_Product):
    # ``taxi_type`` here is a real attribute (economy, premium, ...); a marker value is still dropped by
    # Entity.view's ``*_type`` guard.
    VISIBLE: ClassVar[tuple[str, ...]] = ("product_id", "taxi_type", "platform", "date", "price", "quantity")

    taxi_type: str = ""
    platform: str = ""


class Hotel(TaggedEntity):
    hotel_id: str = ""
    hotel_name: str = ""
    score: float | None = None
    star_rating: float | str | None = None
    location: Location | None = None
    tags: list[str] = Field(default_factory=list)
    products: list[HotelProduct] = Field(default_factory=list)


class Attraction(Entity):
    attraction_id: str = ""
    attraction_name: str = ""
    location: Location | None = None
    description: str = ""
    score: float | None = None
    opening_hours: str = ""
    ticket_price: float | None = None
    products: list[AttractionProduct] = Field(default_factory=list)


class Flight(TaggedEntity):
    flight_id: str = ""
    flight_number: str = ""
    departure_city: str = ""
    arrival_city: str = ""
    departure_airport_location: Location | None = None
    arrival_airport_location: Location | None = None
    departure_time: str = ""
    arrival_time: str = ""
    tags: list[str] = Field(default_factory=list)
    products: list[SeatProduct] = Field(default_factory=list)


class Train(TaggedEntity):
    train_id: str = ""
    train_number: str = ""
    departure_city: str = ""
    arrival_city: str = ""
    departure_station_location: Location | None = None
    arrival_station_location: Location | None = None
    departure_time: str = ""
    arrival_time: str = ""
    tags: list[str] = Field(default_factory=list)
    products: list[SeatProduct] = Field(default_factory=list)


class Taxi(TaggedEntity):
    taxi_id: str = ""
    taxi_type: str = ""
    platform: str = ""
    # VitaBench 2.0 data gives Location objects; a bare address string is tolerated.
    departure_location: Location | str | None = None
    arrival_location: Location | str | None = None
    estimated_duration: float | str | None = None
    estimated_price: float | None = None
    tags: list[str] = Field(default_factory=list)
    products: list[TaxiProduct] = Field(default_factory=list)

    def address(self, which: str) -> str:
        """The departure or arrival address text (``which`` is ``departure`` or ``arrival``)."""
        value = getattr(self, f"{which}_location")
        if isinstance(value, Location):
            return value.address
        return value or ""


class OtaDB(DomainDB):
    """The ota environment dict: hotels, attractions, flights, trains, taxis plus the common fields."""

    hotels: dict[str, Hotel] = Field(default_factory=dict)
    attractions: dict[str, Attraction] = Field(default_factory=dict)
    flights: dict[str, Flight] = Field(default_factory=dict)
    trains: dict[str, Train] = Field(default_factory=dict)
    taxis: dict[str, Taxi] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _fill_ota_ids(self) -> OtaDB:
        # The dict key is the entity id when the entity omits it.
        for container, id_field, _, _ in ORDER_KINDS.values():
            for key, entity in getattr(self, container).items():
                if not getattr(entity, id_field):
                    setattr(entity, id_field, key)
        return self


#: Order type -> (entity container, entity id field, entity name field, product "kind" field).
ORDER_KINDS: dict[str, tuple[str, str, str, str]] = {
    "hotel": ("hotels", "hotel_id", "hotel_name", "room_type"),
    "attraction": ("attractions", "attraction_id", "attraction_name", "ticket_type"),
    "flight": ("flights", "flight_id", "flight_number", "seat_type"),
    "train": ("trains", "train_id", "train_number", "seat_type"),
    "taxi": ("taxis", "taxi_id", "platform", "taxi_type"),
}
KINDS = tuple(ORDER_KINDS)
