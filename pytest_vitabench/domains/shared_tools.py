"""The 7 tools every domain offers, as in VitaBench 2.0, and the argument types several domains share."""

from __future__ import annotations

from typing import Annotated, Any

from .base import ToolError
from .clock import parse_date
from .declare import Arg, ToolSet, tool
from .entities import Location, model_values
from .environment import NEARBY_CONTAINERS
from .fuzzy import fuzzy_score
from .geo import distance_m, haversine_m
from .public_holidays import holiday_dates, holidays_on

UserId = Annotated[str, Arg("The user's ID (as given in the user profile), e.g. 'U000001'.")]
OrderId = Annotated[str, Arg("The order ID returned when the order was created, e.g. 'OT1A2B3C4D5E'.")]
#: Minimum fuzzy score for a city to answer a weather question about an address.
WEATHER_CITY_MATCH = 50


class SharedTools(ToolSet):
    """Distances, weather, geocoding, holidays, the user's orders and what is nearby."""

    official_class = "ToolKitBase"

    @tool("generic")
    def longitude_latitude_to_distance(
        self,
        longitude1: Annotated[float, Arg("Longitude of the first point.")],
        latitude1: Annotated[float, Arg("Latitude of the first point.")],
        longitude2: Annotated[float, Arg("Longitude of the second point.")],
        latitude2: Annotated[float, Arg("Latitude of the second point.")],
    ) -> float | str:
        """Compute the straight-line (great-circle) distance in metres between two points."""
        return haversine_m(float(longitude1), float(latitude1), float(longitude2), float(latitude2))

    @tool("generic")
    def weather(
        self,
        address: Annotated[str, Arg("An address or city name, e.g. 'Kunming'.")],
        date_start: Annotated[str, Arg("First date, YYYY-MM-DD.")],
        date_end: Annotated[str, Arg("Last date (inclusive), YYYY-MM-DD.")],
    ) -> Any:
        """Look up the weather forecast of the city containing an address for a date range. Returns one entry
        per day (city, category, date, temperature range, humidity)."""
        start, end = parse_date(date_start, "date_start"), parse_date(date_end, "date_end")
        if end < start:
            raise ToolError("date_end must not be before date_start")
        forecasts = self.env.db.weather
        cities = sorted({w.city for w in forecasts})
        scored = sorted(((fuzzy_score(city, address), city) for city in cities), key=lambda r: (-r[0], r[1]))
        if not scored or scored[0][0] < WEATHER_CITY_MATCH:
            return f"No weather information for {address!r}"
        city = scored[0][1]
        rows = [
            w.view() for w in forecasts if w.city == city and start <= parse_date(w.datetime, "weather date") <= end
        ]
        if not rows:
            return f"No weather information for {city} between {start} and {end}"
        return rows

    @tool("generic")
    def address_to_longitude_latitude(
        self, address: Annotated[str, Arg("The full address text.")]
    ) -> list[float] | str:
        """Convert an address into its coordinates. Returns [longitude, latitude]. Precondition: the address
        should be as complete as possible."""
        loc = self.env.geocode(address)
        return [loc.longitude, loc.latitude]

    @tool("generic")
    def get_date_holiday_info(self, date: Annotated[str, Arg("The date, YYYY-MM-DD.")]) -> str:
        """Tell whether a date is a Chinese public holiday, and which one."""
        day = parse_date(date)
        names = holidays_on(day, self.env.language)
        if not names:
            return f"Date {day.isoformat()} is not a holiday"
        return f"Date {day.isoformat()} is a public holiday: {' / '.join(names)}"

    @tool("generic")
    def get_holiday_date(
        self,
        year: Annotated[str, Arg("The year, e.g. '2025'.")],
        holiday_name: Annotated[str, Arg("The holiday's name in English or Chinese.")],
    ) -> Any:
        """List the days off of a Chinese public holiday in a given year (e.g. Spring Festival, Qingming
        Festival, Labour Day, Dragon Boat Festival, Mid-Autumn Festival, National Day)."""
        try:
            year_int = int(str(year).strip())
        except ValueError:
            raise ToolError(f"Invalid year {year!r}") from None
        dates = holiday_dates(year_int, str(holiday_name))
        if dates is None:
            raise ToolError(f"No holiday named {holiday_name!r} found for {year_int}")
        return {"holiday": holiday_name, "year": year_int, "dates": dates}

    @tool("read")
    def get_user_all_orders(self) -> Any:
        """List every order of the current user (all types and statuses), with products and status."""
        orders = [self.env.order_view(o) for o in self.env.db.orders.values()]
        return orders or "User currently has no order information"

    @tool("read")
    def get_nearby(
        self,
        longitude: Annotated[float, Arg("Longitude of the centre point.")],
        latitude: Annotated[float, Arg("Latitude of the centre point.")],
        range: Annotated[float, Arg("Search radius in metres.")],  # noqa: A002 - VitaBench 2.0's name
    ) -> Any:
        """List places (stores, shops, hotels, attractions, stations, airports) within a radius of a point,
        nearest first, with their distance in metres."""
        here = Location(longitude=float(longitude), latitude=float(latitude))
        found: list[dict[str, Any]] = []
        for container, items in self.env.containers(NEARBY_CONTAINERS):
            for entity in items.values():
                dists = [distance_m(here, p) for p in model_values(entity) if isinstance(p, Location)]
                if dists and min(dists) <= float(range):
                    found.append({"kind": container[:-1], "distance_m": min(dists), **entity.summary()})
        found.sort(key=lambda r: r["distance_m"])
        return found or f"Nothing found within {range} metres"
