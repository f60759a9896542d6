"""Infrastructure shared by every domain: entity models, the environment base, the 7 shared tools.

Leakage guarantee: suite data may carry answer markers (``store_type: "target"``, ``distraction_reason``,
``category``, ...). Entity models accept any extra key (``extra="allow"``) but :meth:`Entity.view` emits
only *declared* fields, and additionally drops every hidden field of :mod:`..vocabulary` (any ``*_type``
field whose value is a marker value). Every tool builds its output from views, so an undeclared key can
never reach the agent.

Determinism: "now" is ``db.time`` (never the wall clock) and new record ids are derived from the trial
seed and a per-environment counter.
"""

from __future__ import annotations

import copy
import hashlib
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ..vocabulary import is_hidden
from .base import Environment, Tool, ToolError

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
DATE_FORMAT = "%Y-%m-%d"

#: Containers of entities with a location, in the order ``get_nearby`` lists them.
NEARBY_CONTAINERS = ("stores", "shops", "hotels", "attractions", "flights", "trains")
#: Record containers (never searched as entities).
RECORD_CONTAINERS = ("orders", "reservations", "books")

SEARCH_TOP_K = 100
EARTH_RADIUS_M = 6371000.0


# --------------------------------------------------------------------------------------------- views


def _render(value: Any) -> Any:
    if isinstance(value, Entity):
        return value.view()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (list, tuple)):
        return [_render(item) for item in value]
    if isinstance(value, dict):
        return {k: _render(v) for k, v in value.items() if not is_hidden(str(k), v)}
    return value


class Entity(BaseModel):
    """A database entity: accepts hidden extra keys, shows only declared fields.

    Subclasses may set ``VISIBLE`` (the fields of :meth:`view`, default all declared fields) and
    ``SUMMARY`` (the compact fields used in search results and lists).
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
            out[name] = _render(value)
        return out

    def summary(self) -> dict[str, Any]:
        """The compact view used in search results."""
        return self.view(self.SUMMARY)


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


class DomainDB(BaseModel):
    """Fields every domain database has. Unknown top-level keys are ignored, as the official loader does."""

    model_config = ConfigDict(extra="ignore")

    time: str = ""
    user_id: str = ""
    weather: list[Weather] = Field(default_factory=list)
    location: list[Location] = Field(default_factory=list)
    orders: dict[str, Order] = Field(default_factory=dict)
    # Accepted for compatibility; exposed through no tool (it leaks preferences, REFERENCE §2.6).
    user_historical_behaviors: dict[str, Any] | list[Any] | str | None = None


DB = TypeVar("DB", bound=DomainDB)


def load_db(
    model: type[DB], environment: dict[str, Any], *, user_id: str | None = None, time: str | None = None
) -> DB:
    """Validate a deep copy of ``environment`` as ``model``, overriding ``time`` / ``user_id`` when given.

    Raises:
        pydantic.ValidationError: Invalid environment.
        ValueError: The effective time is blank or malformed.
    """
    data = copy.deepcopy(environment)
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


# --------------------------------------------------------------------------------------------- time


def parse_time(value: str, what: str = "time") -> datetime:
    """Parse ``YYYY-MM-DD HH:MM:SS`` (seconds optional, ``T`` accepted); ToolError otherwise."""
    text = str(value).strip().replace("T", " ")
    for fmt in (TIME_FORMAT, "%Y-%m-%d %H:%M"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise ToolError(f"Invalid {what} {value!r}: expected format YYYY-MM-DD HH:MM:SS")


def parse_date(value: str, what: str = "date") -> date:
    """Parse ``YYYY-MM-DD``; ToolError otherwise."""
    try:
        return datetime.strptime(str(value).strip()[:10], DATE_FORMAT).date()
    except ValueError:
        raise ToolError(f"Invalid {what} {value!r}: expected format YYYY-MM-DD") from None


def format_time(value: datetime) -> str:
    return value.strftime(TIME_FORMAT)


# --------------------------------------------------------------------------------------------- geo + search


def haversine_m(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Great-circle distance in metres (R = 6371 km), rounded to whole metres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dphi = p2 - p1
    dlmb = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlmb / 2) ** 2
    return float(round(2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))))


def distance_m(a: Location, b: Location) -> float:
    return haversine_m(a.longitude, a.latitude, b.longitude, b.latitude)


T = TypeVar("T")


def fuzzy_rank(
    keywords: str | Sequence[str], candidates: Iterable[tuple[str, str, T]], top_k: int = SEARCH_TOP_K
) -> list[T]:
    """Rank candidates by fuzzy similarity to the keywords.

    Args:
        keywords: One string or a list (joined with spaces).
        candidates: ``(id, text, item)`` triples; ``id`` breaks ties so the order is deterministic.
        top_k: Maximum number of results.

    Returns:
        The items, best first. As in the official harness there is no score threshold.
    """
    from rapidfuzz import fuzz

    query = keywords if isinstance(keywords, str) else " ".join(str(k) for k in keywords)
    query = query.lower().strip()
    scored = [
        (fuzz.partial_ratio(query, text.lower()) if query else 0.0, cid, item)
        for cid, text, item in candidates
    ]
    scored.sort(key=lambda row: (-row[0], row[1]))
    return [item for _, _, item in scored[:top_k]]


def fuzzy_score(a: str, b: str) -> float:
    from rapidfuzz import fuzz

    return float(fuzz.partial_ratio(a.lower(), b.lower()))


# --------------------------------------------------------------------------------------------- records


def _attr_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def order_record(order: Order, *, new: bool) -> dict[str, Any]:
    """The flat record view of an order (fields of ``suite.checks.RECORD_FIELDS`` plus ``new``)."""
    quantities = [p.quantity for p in order.products]
    return {
        "record_type": order.order_type,
        "record_id": order.order_id,
        "entity_id": order.store_id,
        "status": order.status,
        "product_ids": [p.product_id for p in order.products],
        "quantities": quantities,
        "total_quantity": sum(quantities),
        "total_price": order.total_price,
        "create_time": order.create_time,
        "address": order.location.address if order.location else "",
        "dispatch_time": order.dispatch_time or "",
        "delivery_time": order.delivery_time or "",
        "note": order.note,
        "attributes": [_attr_text(p.attributes) for p in order.products],
        "dates": [p.date for p in order.products if p.date],
        "time": None,
        "customer_count": None,
        "new": new,
    }


def reservation_record(reservation: Any, *, new: bool) -> dict[str, Any]:
    """The flat record view of an instore table reservation (``record_type="reservation"``)."""
    return _visit_record(
        "reservation", reservation.reservation_id, reservation, reservation.reservation_time, 0.0, new
    )


def book_record(book: Any, *, new: bool) -> dict[str, Any]:
    """The flat record view of an instore booking (``record_type="book"``)."""
    return _visit_record("book", book.book_id, book, book.book_time, float(book.book_price or 0), new)


def _visit_record(kind: str, record_id: str, item: Any, when: str, price: float, new: bool) -> dict[str, Any]:
    return {
        "record_type": kind,
        "record_id": record_id,
        "entity_id": item.shop_id,
        "status": item.status,
        "product_ids": [],
        "quantities": [],
        "total_quantity": 0,
        "total_price": price,
        "create_time": getattr(item, "create_time", None) or item.update_time,
        "address": "",
        "dispatch_time": "",
        "delivery_time": "",
        "note": "",
        "attributes": [],
        "dates": [when[:10]] if when else [],
        "time": when,
        "customer_count": item.customer_count,
        "new": new,
    }


# --------------------------------------------------------------------------------------------- environment


@dataclass
class DomainEnvironment(Environment):
    """An environment over a validated domain database.

    Attributes:
        db: The episode's own (deep-copied) database.
        seed: The trial seed; new record ids derive from it.
        language: ``en`` or ``zh``; only affects a few generated strings (holiday names).
        initial_ids: Ids of records present before the episode, so :meth:`records` can mark ``new``.
    """

    db: Any = None
    seed: int = 0
    language: str = "en"
    initial_ids: set[str] = field(default_factory=set)
    #: Per order type, a domain-specific order view (used by merged multi-domain environments).
    order_views: dict[str, Callable[[Order], dict[str, Any]]] = field(default_factory=dict)
    _counter: int = 0

    def __post_init__(self) -> None:
        if self.db is not None and not self.initial_ids:
            self.initial_ids = {rid for rid, _ in self._iter_records()}

    # ---- clock and ids

    def now(self) -> datetime:
        """The simulated current time (``db.time``)."""
        return parse_time(self.db.time, "environment time")

    def now_text(self) -> str:
        return format_time(self.now())

    def new_id(self, prefix: str) -> str:
        """A fresh, deterministic record id: prefix + 10 hex of sha256(seed:counter), unique in this db."""
        taken = {rid for rid, _ in self._iter_records()}
        while True:
            self._counter += 1
            rid = prefix + hashlib.sha256(f"{self.seed}:{self._counter}".encode()).hexdigest()[:10].upper()
            if rid not in taken:
                return rid

    def check_user(self, user_id: str) -> None:
        """Refuse (as a counted error) a user id other than the environment's."""
        if str(user_id).strip() != str(self.db.user_id).strip():
            raise ToolError("User ID does not match")

    # ---- entities

    def containers(self, names: Iterable[str] | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(name, {id: entity})`` for each entity container present in the db."""
        fields = type(self.db).model_fields
        for name in names if names is not None else fields:
            if name in fields and name not in RECORD_CONTAINERS:
                value = getattr(self.db, name, None)
                if isinstance(value, dict):
                    yield name, value

    def find_entity(self, entity_id: str) -> Entity | None:
        containers = list(self.containers(NEARBY_CONTAINERS + ("taxis",)))
        for _, items in containers:
            if entity_id in items:
                return items[entity_id]
        # Official data occasionally keys an entity differently from its own id field.
        for name, items in containers:
            for entity in items.values():
                if getattr(entity, f"{name[:-1]}_id", None) == entity_id:
                    return entity
        return None

    def entity_name(self, entity_id: str) -> str | None:
        entity = self.find_entity(entity_id)
        if entity is None:
            return None
        for attr in ("name", "shop_name", "hotel_name", "attraction_name", "flight_number", "train_number"):
            value = getattr(entity, attr, None)
            if value:
                return str(value)
        return None

    def locations(self) -> list[Location]:
        """Every location known to THIS environment: ``location`` entries, entity and order locations."""
        found: list[Location] = list(self.db.location)
        for _, items in self.containers():
            for entity in items.values():
                if isinstance(entity, BaseModel):
                    found.extend(v for v in _model_values(entity) if isinstance(v, Location))
        for order in self.db.orders.values():
            if order.location is not None:
                found.append(order.location)
        return found

    def geocode(self, address: str) -> Location:
        """The best fuzzy match of ``address`` among this environment's locations; ToolError if none."""
        from rapidfuzz import fuzz

        query = str(address).strip()
        if not query:
            raise ToolError("Address is empty")
        best: tuple[float, float, int] | None = None
        best_loc: Location | None = None
        for index, loc in enumerate(self.locations()):
            if not loc.address:
                continue
            if loc.address == query:
                return loc
            partial = fuzz.partial_ratio(query.lower(), loc.address.lower())
            full = fuzz.ratio(query.lower(), loc.address.lower())
            key = (partial, full, -index)
            if partial >= 30 and full >= 20 and (best is None or key > best):
                best, best_loc = key, loc
        if best_loc is None:
            raise ToolError(f"Could not find coordinates for address {address!r}")
        return best_loc

    # ---- records

    def _iter_records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for order in self.db.orders.values():
            yield order.order_id, {}
        for name in ("reservations", "books"):
            for rid in getattr(self.db, name, None) or {}:
                yield rid, {}

    def records(self) -> list[dict[str, Any]]:
        out = [order_record(o, new=o.order_id not in self.initial_ids) for o in self.db.orders.values()]
        for res in (getattr(self.db, "reservations", None) or {}).values():
            out.append(reservation_record(res, new=res.reservation_id not in self.initial_ids))
        for book in (getattr(self.db, "books", None) or {}).values():
            out.append(book_record(book, new=book.book_id not in self.initial_ids))
        return out

    # ---- views

    def entity_summary(self, container: str, entity: BaseModel) -> dict[str, Any]:
        """A compact, leak-free view of an entity (for ``get_nearby``); domains may override.

        :class:`Entity` subclasses use their ``SUMMARY``; other models show their declared scalar
        fields and locations only (never extras, never nested catalogues).
        """
        if isinstance(entity, Entity):
            return entity.summary()
        out: dict[str, Any] = {}
        for name in type(entity).model_fields:
            value = getattr(entity, name, None)
            if value is None or is_hidden(name, value):
                continue
            if isinstance(value, (str, int, float)) or isinstance(value, Location):
                out[name] = _render(value)
        return out

    def order_view(self, order: Order) -> dict[str, Any]:
        """What the agent sees of an order: visible fields plus the store/shop/hotel name."""
        special = self.order_views.get(order.order_type)
        if special is not None:
            return special(order)
        view = order.view()
        name = self.entity_name(order.store_id)
        if name:
            view = {"order_id": view.pop("order_id"), "store_name": name, **view}
        return view

    def get_order(self, order_id: str, order_type: str | Sequence[str] | None = None) -> Order:
        """The order with this id (of the given type(s)); ToolError otherwise."""
        order = self.db.orders.get(str(order_id).strip())
        types = (order_type,) if isinstance(order_type, str) else order_type
        if order is None or (types and order.order_type not in types):
            raise ToolError(f"Order {order_id!r} not found")
        return order


def _model_values(model: BaseModel) -> Iterator[Any]:
    for name in type(model).model_fields:
        value = getattr(model, name, None)
        if isinstance(value, list):
            yield from value
        else:
            yield value


# --------------------------------------------------------------------------------------------- schemas


def arg(type_: str, description: str, **extra: Any) -> dict[str, Any]:
    """One JSON-schema property."""
    return {"type": type_, "description": description, **extra}


def str_list(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def int_list(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "integer"}, "description": description}


def params(required: Sequence[str] = (), **properties: dict[str, Any]) -> dict[str, Any]:
    """An object schema with the given properties; ``required`` lists the mandatory ones."""
    return {"type": "object", "properties": properties, "required": list(required)}


USER_ID_ARG = arg("string", "The user's ID (as given in the user profile), e.g. 'U000001'.")
ORDER_ID_ARG = arg("string", "The order ID returned when the order was created, e.g. 'OT1A2B3C4D5E'.")


# --------------------------------------------------------------------------------------------- holidays

# Chinese statutory public-holiday periods (State Council notices), 2023-2026: (en, zh, first, last).
# Mid-Autumn and National Day share one period in 2023 and 2025.
_HOLIDAYS: tuple[tuple[str, str, str, str], ...] = (
    ("New Year's Day", "元旦", "2023-01-01", "2023-01-02"),
    ("Spring Festival", "春节", "2023-01-21", "2023-01-27"),
    ("Qingming Festival", "清明节", "2023-04-05", "2023-04-05"),
    ("Labour Day", "劳动节", "2023-04-29", "2023-05-03"),
    ("Dragon Boat Festival", "端午节", "2023-06-22", "2023-06-24"),
    ("Mid-Autumn Festival", "中秋节", "2023-09-29", "2023-10-06"),
    ("National Day", "国庆节", "2023-09-29", "2023-10-06"),
    ("New Year's Day", "元旦", "2024-01-01", "2024-01-01"),
    ("Spring Festival", "春节", "2024-02-10", "2024-02-17"),
    ("Qingming Festival", "清明节", "2024-04-04", "2024-04-06"),
    ("Labour Day", "劳动节", "2024-05-01", "2024-05-05"),
    ("Dragon Boat Festival", "端午节", "2024-06-08", "2024-06-10"),
    ("Mid-Autumn Festival", "中秋节", "2024-09-15", "2024-09-17"),
    ("National Day", "国庆节", "2024-10-01", "2024-10-07"),
    ("New Year's Day", "元旦", "2025-01-01", "2025-01-01"),
    ("Spring Festival", "春节", "2025-01-28", "2025-02-04"),
    ("Qingming Festival", "清明节", "2025-04-04", "2025-04-06"),
    ("Labour Day", "劳动节", "2025-05-01", "2025-05-05"),
    ("Dragon Boat Festival", "端午节", "2025-05-31", "2025-06-02"),
    ("Mid-Autumn Festival", "中秋节", "2025-10-01", "2025-10-08"),
    ("National Day", "国庆节", "2025-10-01", "2025-10-08"),
    ("New Year's Day", "元旦", "2026-01-01", "2026-01-03"),
    ("Spring Festival", "春节", "2026-02-15", "2026-02-23"),
    ("Qingming Festival", "清明节", "2026-04-04", "2026-04-06"),
    ("Labour Day", "劳动节", "2026-05-01", "2026-05-05"),
    ("Dragon Boat Festival", "端午节", "2026-06-19", "2026-06-21"),
    ("Mid-Autumn Festival", "中秋节", "2026-09-25", "2026-09-27"),
    ("National Day", "国庆节", "2026-10-01", "2026-10-07"),
)
_HOLIDAY_ALIASES = {
    "Chinese New Year": "Spring Festival",
    "Lunar New Year": "Spring Festival",
    "Tomb-Sweeping Day": "Qingming Festival",
    "Tomb Sweeping Day": "Qingming Festival",
    "Labor Day": "Labour Day",
    "May Day": "Labour Day",
    "Moon Festival": "Mid-Autumn Festival",
    "New Year": "New Year's Day",
    "Duanwu Festival": "Dragon Boat Festival",
}


def holidays_on(day: date, language: str = "en") -> list[str]:
    """Names of the public holidays whose period contains ``day``."""
    iso = day.isoformat()
    return [zh if language == "zh" else en for en, zh, first, last in _HOLIDAYS if first <= iso <= last]


def holiday_dates(year: int, name: str) -> list[str] | None:
    """The dates of the named holiday (English or Chinese name, fuzzy) in ``year``; None if unknown."""
    query = name.strip()
    query = _HOLIDAY_ALIASES.get(query, query)
    best: tuple[float, tuple[str, str, str, str]] | None = None
    for row in _HOLIDAYS:
        if not row[2].startswith(f"{year}-"):
            continue
        score = max(fuzzy_score(query, row[0]), fuzzy_score(query, row[1]))
        if score >= 80 and (best is None or score > best[0]):
            best = (score, row)
    if best is None:
        return None
    first, last = parse_date(best[1][2]), parse_date(best[1][3])
    return [(first + timedelta(days=i)).isoformat() for i in range((last - first).days + 1)]


# --------------------------------------------------------------------------------------------- shared tools


def shared_tools(env: DomainEnvironment) -> list[Tool]:
    """The 7 tools every domain offers (REFERENCE §2.1), bound to ``env``."""

    def longitude_latitude_to_distance(
        longitude1: float, latitude1: float, longitude2: float, latitude2: float
    ) -> float:
        return haversine_m(float(longitude1), float(latitude1), float(longitude2), float(latitude2))

    def weather(address: str, date_start: str, date_end: str) -> Any:
        start, end = parse_date(date_start, "date_start"), parse_date(date_end, "date_end")
        if end < start:
            raise ToolError("date_end must not be before date_start")
        cities = sorted({w.city for w in env.db.weather})
        scored = sorted(((fuzzy_score(city, address), city) for city in cities), key=lambda r: (-r[0], r[1]))
        if not scored or scored[0][0] < 50:
            return f"No weather information for {address!r}"
        city = scored[0][1]
        rows = [
            w.view()
            for w in env.db.weather
            if w.city == city and start <= parse_date(w.datetime, "weather date") <= end
        ]
        if not rows:
            return f"No weather information for {city} between {start} and {end}"
        return rows

    def address_to_longitude_latitude(address: str) -> list[float]:
        loc = env.geocode(address)
        return [loc.longitude, loc.latitude]

    def get_date_holiday_info(date: str) -> str:
        day = parse_date(date)
        names = holidays_on(day, env.language)
        if not names:
            return f"Date {day.isoformat()} is not a holiday"
        return f"Date {day.isoformat()} is a public holiday: {' / '.join(names)}"

    def get_holiday_date(year: str, holiday_name: str) -> Any:
        try:
            year_int = int(str(year).strip())
        except ValueError:
            raise ToolError(f"Invalid year {year!r}") from None
        dates = holiday_dates(year_int, holiday_name)
        if dates is None:
            raise ToolError(
                f"No holiday named {holiday_name!r} found for {year_int} (table covers 2023-2026)"
            )
        return {"holiday": holiday_name, "year": year_int, "dates": dates}

    def get_user_all_orders() -> Any:
        orders = [env.order_view(o) for o in env.db.orders.values()]
        return orders or "User currently has no order information"

    def get_nearby(longitude: float, latitude: float, range: float) -> Any:  # noqa: A002 - official name
        here = Location(longitude=float(longitude), latitude=float(latitude))
        found: list[dict[str, Any]] = []
        for container, items in env.containers(NEARBY_CONTAINERS):
            for _entity_id, entity in items.items():
                points = [v for v in _model_values(entity) if isinstance(v, Location)]
                dists = [distance_m(here, p) for p in points]
                if dists and min(dists) <= float(range):
                    found.append(
                        {
                            "kind": container[:-1],
                            "distance_m": min(dists),
                            **env.entity_summary(container, entity),
                        }
                    )
        found.sort(key=lambda r: r["distance_m"])
        return found or f"Nothing found within {range} metres"

    return [
        Tool(
            "longitude_latitude_to_distance",
            "Compute the straight-line (great-circle) distance in metres between two points.",
            params(
                ["longitude1", "latitude1", "longitude2", "latitude2"],
                longitude1=arg("number", "Longitude of the first point."),
                latitude1=arg("number", "Latitude of the first point."),
                longitude2=arg("number", "Longitude of the second point."),
                latitude2=arg("number", "Latitude of the second point."),
            ),
            longitude_latitude_to_distance,
            "generic",
        ),
        Tool(
            "weather",
            "Look up the weather forecast of the city containing an address for a date range. "
            "Returns one entry per day (city, category, date, temperature range, humidity).",
            params(
                ["address", "date_start", "date_end"],
                address=arg("string", "An address or city name, e.g. 'Kunming'."),
                date_start=arg("string", "First date, YYYY-MM-DD."),
                date_end=arg("string", "Last date (inclusive), YYYY-MM-DD."),
            ),
            weather,
            "generic",
        ),
        Tool(
            "address_to_longitude_latitude",
            "Convert an address into its coordinates. Returns [longitude, latitude]. "
            "Precondition: the address should be as complete as possible.",
            params(["address"], address=arg("string", "The full address text.")),
            address_to_longitude_latitude,
            "generic",
        ),
        Tool(
            "get_date_holiday_info",
            "Tell whether a date is a Chinese public holiday, and which one.",
            params(["date"], date=arg("string", "The date, YYYY-MM-DD.")),
            get_date_holiday_info,
            "generic",
        ),
        Tool(
            "get_holiday_date",
            "List the days off of a Chinese public holiday in a given year (e.g. Spring Festival, "
            "Qingming Festival, Labour Day, Dragon Boat Festival, Mid-Autumn Festival, National Day).",
            params(
                ["year", "holiday_name"],
                year=arg("string", "The year, e.g. '2025'."),
                holiday_name=arg("string", "The holiday's name in English or Chinese."),
            ),
            get_holiday_date,
            "generic",
        ),
        Tool(
            "get_user_all_orders",
            "List every order of the current user (all types and statuses), with products and status.",
            params(),
            get_user_all_orders,
            "read",
        ),
        Tool(
            "get_nearby",
            "List places (stores, shops, hotels, attractions, stations, airports) within a radius of a "
            "point, nearest first, with their distance in metres.",
            params(
                ["longitude", "latitude", "range"],
                longitude=arg("number", "Longitude of the centre point."),
                latitude=arg("number", "Latitude of the centre point."),
                range=arg("number", "Search radius in metres."),
            ),
            get_nearby,
            "read",
        ),
    ]


SHARED_TOOL_NAMES = (
    "longitude_latitude_to_distance",
    "weather",
    "address_to_longitude_latitude",
    "get_date_holiday_info",
    "get_holiday_date",
    "get_user_all_orders",
    "get_nearby",
)

ToolFactory = Callable[[DomainEnvironment], list[Tool]]
