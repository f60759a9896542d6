"""The tools every domain shares, as the official harness runs them (``--vita-deviation tool-results=official``).

Distances, weather, geocoding, the user's orders and what is nearby, with the official answers and checks (see
:mod:`.delivery.official` for the conventions). The two holiday tools keep ours in both styles: the official
ones read a hand-written table of 2023-2025, ours the ``holidays`` package for any year (a fix, README).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ..domains.base import ToolError
from ..domains.clock import DATE_FORMAT, TIME_FORMAT
from ..domains.entities import Order, catalogue_product
from ..domains.fuzzy import official_rank, official_score
from ..domains.geo import haversine_m
from . import record_text as text
from .messages import MessageKey, message

_FILE = "shared"
BAD_START = message(_FILE, "weather", "date_start")
BAD_END = message(_FILE, "weather", "date_end")
NO_WEATHER_CITY = message(_FILE, "weather", "address")
NO_WEATHER = message(_FILE, "weather", "weather_info[0]", "date_start", "date_end")
NO_COORDINATES = message(_FILE, "address_to_longitude_latitude", "address")
NOTHING_NEARBY = message(_FILE, "get_nearby")


def parses_as(value: Any, fmt: str) -> bool:
    """Whether ``value`` reads as a date or time of ``fmt``, as the official tools check their arguments."""
    try:
        datetime.strptime(str(value), fmt)
    except ValueError:
        return False
    return True


def valid_date(value: Any) -> bool:
    """Whether ``value`` reads as ``YYYY-MM-DD``, as the official tools check a date."""
    return parses_as(value, DATE_FORMAT)


def valid_time(value: Any) -> bool:
    """Whether ``value`` reads as ``YYYY-MM-DD HH:MM:SS``, as the official tools check a time."""
    return parses_as(value, TIME_FORMAT)


class OfficialTools:
    """What every domain's official tools share: the environment, its database, the official messages."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.db = env.db

    def say(self, key: MessageKey, *values: Any) -> str:
        return self.env.say(key, *values)

    def order_repr(self, order: Order) -> str:
        return text.order_text(self.db, order)

    def user_problem(self, user_id: str, checks: tuple[MessageKey, ...]) -> str | None:
        """The official answer to an empty ``user_id`` or another user's (the first two of ``checks``), or
        ``None`` when it is the current user's."""
        empty, mismatch, *_ = checks
        if not user_id:
            return self.say(empty)
        if user_id != self.db.user_id:
            return self.say(mismatch)
        return None

    # The official lookups raise ValueError: the agent reads "Error: <the message>".

    def keyed(self, items: dict[str, Any], key: str, missing: MessageKey) -> Any:
        """``items[key]``, else the official lookup's error (``missing``, saying the key)."""
        if key not in items:
            raise ToolError(self.say(missing, key))
        return items[key]

    def typed_order(self, order_id: str, order_type: str, missing: MessageKey, other_type: MessageKey) -> Order:
        """The order ``order_id`` if it is of ``order_type``, else the official lookup's error."""
        found = self.keyed(self.db.orders, order_id, missing)
        if found.order_type != order_type:
            raise ToolError(self.say(other_type, order_id))
        return found

    def catalogue_product(self, container: str, product_id: str, missing: MessageKey) -> Any:
        """The product ``product_id`` of a catalogue in ``container`` (``stores``, ``shops``), else the official
        lookup's error."""
        product = catalogue_product(self.db, container, product_id)
        if product is None:
            raise ToolError(self.say(missing, product_id))
        return product


def distance(lon1: Any, lat1: Any, lon2: Any, lat2: Any) -> float:
    """The official great-circle distance in metres: ours, after the official check for equal points, which
    answers 0 before any arithmetic (so also for two equal strings)."""
    if lon1 == lon2 and lat1 == lat2:
        return 0.0
    return haversine_m(lon1, lat1, lon2, lat2)


class OfficialShared(OfficialTools):
    """The official behaviour of the shared tools, over our environment."""

    def longitude_latitude_to_distance(self, longitude1: Any, latitude1: Any, longitude2: Any, latitude2: Any
                                       ) -> str:
        return text.json_number(distance(longitude1, latitude1, longitude2, latitude2))

    def weather(self, address: str, date_start: str, date_end: str) -> str:
        if not valid_date(date_start):
            return self.say(BAD_START, date_start)
        if not valid_date(date_end):
            return self.say(BAD_END, date_end)
        forecasts = self.db.weather
        cities = list(dict.fromkeys(w.city for w in forecasts))  # the official {city: city} keeps one of each
        ranked = official_rank(address, [(c, c, c) for c in cities])
        if not ranked:
            raise ToolError("list index out of range")  # the official tool indexes an empty ranking
        city = ranked[0]
        if round(official_score(address, city)) < 50:
            raise ToolError(self.say(NO_WEATHER_CITY, address))
        start, end = (datetime.strptime(d, "%Y-%m-%d").date() for d in (date_start, date_end))
        rows = sorted((w for w in forecasts if w.city == city
                       and start <= datetime.strptime(w.datetime, "%Y-%m-%d").date() <= end), key=lambda w: w.datetime)
        if not rows:
            return self.say(NO_WEATHER, city, date_start, date_end)
        return "\n".join(_weather(w) for w in rows)

    def address_to_longitude_latitude(self, address: str) -> str:
        try:
            found = self.env.geocode(address)
        except ToolError:
            raise ToolError(self.say(NO_COORDINATES, address)) from None
        # A list answer: each number as its text, the list as JSON.
        return json.dumps([str(float(found.longitude)), str(float(found.latitude))])

    def get_user_all_orders(self) -> str:
        return "\n".join(self.order_repr(o) for o in self.db.orders.values())

    def get_nearby(self, longitude: Any, latitude: Any, radius: Any) -> str:
        found = []
        for name, render in (("stores", text.store_str), ("shops", text.shop_str)):
            for entity in (getattr(self.db, name, None) or {}).values():
                loc = entity.location
                if distance(longitude, latitude, loc.longitude, loc.latitude) <= radius:
                    found.append(render(entity))
        return "\n".join(found) if found else self.say(NOTHING_NEARBY)


def _weather(w: Any) -> str:
    low, high = w.temperature if w.temperature is not None else (None, None)
    return (f"city: {w.city}, weather: {w.category}, datetime: {w.datetime}, "
            f"temperature: {text.number(low)}~{text.number(high)}, humidity: {text.number(w.humidity)}")
