"""The data every domain shares: entities that show only declared fields, orders, the database base.

Leakage guarantee: suite data may carry answer markers (``store_type: "target"``, ``distraction_reason``,
``category``, ...). Entity models accept any extra key (``extra="allow"``) but :meth:`Entity.view` emits
only *declared* fields, and additionally drops every hidden field of :mod:`..vocabulary` (any ``*_type``
field whose value is a marker value). Every tool builds its output from views, so an undeclared key can
never reach the agent.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from ..text.vocabulary import is_hidden
from .base import ToolError
from .clock import parse_time


def as_list(value: Any) -> Any:
    """A list field's raw value as a list: VitaBench 2.0 data has lists, sometimes one comma-joined string."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [] if value is None else value


def render(value: Any) -> Any:
    """A value as the agent may see it: entities as their views, hidden keys dropped at any depth."""
    if isinstance(value, Entity):
        return value.view()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (list, tuple)):
        return [render(item) for item in value]
    if isinstance(value, dict):
        return {k: render(v) for k, v in value.items() if not is_hidden(str(k), v)}
    return value


class Entity(BaseModel):
    """A database entity: accepts hidden extra keys, shows only declared fields.

    The declared fields are the allow-list: an extra key of the data (a ``*_type`` marker,
    ``distraction_reason``) is never shown. Subclasses may set ``VISIBLE`` (the fields of :meth:`view`, when
    not all declared fields in their order) and ``SUMMARY`` (the compact fields used in search results and
    lists, when not the view without the catalogue, ``products``).
    """

    model_config = ConfigDict(extra="allow")

    VISIBLE: ClassVar[tuple[str, ...] | None] = None
    SUMMARY: ClassVar[tuple[str, ...] | None] = None

    def view(self, fields: Sequence[str] | None = None) -> dict[str, Any]:
        """The agent-visible dict of this entity: an allow-list of declared fields, ``None`` omitted."""
        declared = type(self).model_fields
        names = fields if fields is not None else (self.VISIBLE or tuple(declared))
        out: dict[str, Any] = {}
        for name in names:
            if name not in declared:  # never an extra (undeclared) key
                continue
            value = getattr(self, name)
            if value is None or is_hidden(name, value):
                continue
            out[name] = render(value)
        return out

    def summary(self) -> dict[str, Any]:
        """The compact view used in search results."""
        if self.SUMMARY is not None:
            return self.view(self.SUMMARY)
        return self.view([name for name in self.VISIBLE or type(self).model_fields if name != "products"])


class TaggedEntity(Entity):
    """An entity with a ``tags`` list, which VitaBench 2.0 data sometimes gives as one comma-joined string."""

    @field_validator("tags", mode="before", check_fields=False)
    @classmethod
    def _tags_as_list(cls, value: Any) -> Any:
        return as_list(value)


class Location(Entity):
    address: str = ""
    longitude: float
    latitude: float


class Weather(Entity):
    city: str
    category: str = ""
    datetime: str
    temperature: tuple[float, float] | None = None
    humidity: float | None = None


class OrderProduct(Entity):
    """One line of an order; ota lines add ``date`` and a seat/room/ticket type."""

    product_id: str
    name: str | None = None
    price: float = 0.0
    quantity: int = 1
    attributes: str | list[str] | None = None
    date: str | None = None
    seat_type: str | None = None
    room_type: str | None = None
    ticket_type: str | None = None
    taxi_type: str | None = None
    platform: str | None = None


OrderType = str  # delivery / instore / hotel / attraction / flight / train / taxi


class Order(Entity):
    """An order of any type; the entity id (store, shop, hotel, ...) is always in ``store_id``."""

    order_id: str
    order_type: OrderType
    user_id: str
    store_id: str
    note: str = ""
    location: Location | None = None
    dispatch_time: str | None = ""
    shipping_time: int | float | None = None
    delivery_time: str | None = ""
    total_price: float = 0.0
    create_time: str = ""
    update_time: str = ""
    status: str = "unpaid"
    products: list[OrderProduct] = Field(default_factory=list)
    #: The product list as the data gave it (plain dicts): tools answering in the records' string forms print a
    #: loaded order's products that way. ``None`` for an order created during the episode.
    _raw_products: list[Any] | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_raw_products(cls, data: Any, handler: Any) -> Any:
        order = handler(data)
        raw = data.get("products") if isinstance(data, dict) else None
        if isinstance(raw, list) and all(isinstance(p, dict) for p in raw):
            order._raw_products = list(raw)
        return order

    @property
    def raw_products(self) -> list[Any] | None:
        return self._raw_products

    def replace_products(self, products: list[OrderProduct]) -> None:
        """New product lines (a changed date): the data's own form of the old ones no longer applies."""
        self.products = products
        self._raw_products = None


class DomainDB(BaseModel):
    """Fields every domain database has. Unknown top-level keys are ignored, as VitaBench 2.0's loader does."""

    model_config = ConfigDict(extra="ignore")

    time: str = ""
    user_id: str = ""
    weather: list[Weather] = Field(default_factory=list)
    location: list[Location] = Field(default_factory=list)
    orders: dict[str, Order] = Field(default_factory=dict)
    # Accepted for compatibility; exposed through no tool (it leaks the ground-truth preferences, which is why
    # VitaBench 2.0 dropped the tool that returned it).
    user_historical_behaviors: dict[str, Any] | list[Any] | str | None = None


DB = TypeVar("DB", bound=DomainDB)
_SCALARS = (str, int, float, bool, type(None))


def copy_json(value: Any) -> Any:
    """A deep copy of parsed JSON (write tools mutate an episode's copy of its subtask's environment).

    Dicts, lists and immutable scalars are all a JSON parser makes, so the copy needs neither
    ``copy.deepcopy``'s memo nor its per-type dispatch; anything else (a model, a set) is handed to it.
    """
    kind = type(value)
    if kind is dict:
        return {key: copy_json(item) for key, item in value.items()}
    if kind is list:
        return [copy_json(item) for item in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def load_db(
    model: type[DB], environment: dict[str, Any], *, user_id: str | None = None, time: str | None = None
) -> DB:
    """Validate a deep copy of ``environment`` as ``model``, overriding ``time`` / ``user_id`` when given.

    Raises:
        pydantic.ValidationError: Invalid environment.
        ValueError: The effective time is blank or malformed.
    """
    data = copy_json(environment)
    if time:
        data["time"] = time
    if user_id:
        data["user_id"] = user_id
    db = model.model_validate(data)
    # The tools' clock is db.time; a blank one must be resolved by the caller, never the wall clock.
    try:
        parse_time(db.time, "environment time")
    except ToolError as exc:
        raise ValueError(str(exc)) from None
    return db


def catalogue_product(db: Any, container: str, product_id: str) -> Any:
    """The first product with ``product_id`` in the catalogues of ``container`` (``stores``, ``shops``), or
    ``None``."""
    for entity in (getattr(db, container, None) or {}).values():
        for product in entity.products:
            if product.product_id == product_id:
                return product
    return None


def model_values(model: BaseModel) -> Iterator[Any]:
    """The values of a model's declared fields, list fields flattened (to find nested locations)."""
    for name in type(model).model_fields:
        value = getattr(model, name, None)
        if isinstance(value, list):
            yield from value
        else:
            yield value
