"""The shared domain infrastructure under one import, for code written before it was split by concept.

Each name has one home: entities and views in ``entities``, time in ``clock``, distances and geocoding
in ``geo``, fuzzy search in ``fuzzy``, record views in ``records``, the environment in ``environment``,
holidays in ``public_holidays``, the 7 shared tools in ``shared_tools``. New code imports from there.
"""

from __future__ import annotations

from ..vocabulary import ANSWER_MARKER_VALUES as LEAK_VALUES
from ..vocabulary import HIDDEN_KEYS
from .clock import DATE_FORMAT, TIME_FORMAT, format_time, parse_date, parse_time
from .entities import (
    DomainDB,
    Entity,
    Location,
    Order,
    OrderProduct,
    Weather,
    is_hidden,
    load_db,
)
from .environment import NEARBY_CONTAINERS, RECORD_CONTAINERS, DomainEnvironment
from .fuzzy import SEARCH_TOP_K, fuzzy_rank, fuzzy_score
from .geo import EARTH_RADIUS_M, distance_m, haversine_m
from .public_holidays import holiday_dates, holidays_on
from .records import book_record, order_record, reservation_record
from .shared_tools import SHARED_TOOL_NAMES, SharedTools

__all__ = [
    "DATE_FORMAT",
    "EARTH_RADIUS_M",
    "HIDDEN_KEYS",
    "LEAK_VALUES",
    "NEARBY_CONTAINERS",
    "RECORD_CONTAINERS",
    "SEARCH_TOP_K",
    "SHARED_TOOL_NAMES",
    "TIME_FORMAT",
    "DomainDB",
    "DomainEnvironment",
    "Entity",
    "Location",
    "Order",
    "OrderProduct",
    "SharedTools",
    "Weather",
    "book_record",
    "distance_m",
    "format_time",
    "fuzzy_rank",
    "fuzzy_score",
    "haversine_m",
    "holiday_dates",
    "holidays_on",
    "is_hidden",
    "load_db",
    "order_record",
    "parse_date",
    "parse_time",
    "reservation_record",
]
