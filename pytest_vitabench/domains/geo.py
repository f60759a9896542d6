"""Geography: great-circle distances and finding an address among the places an environment knows."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .base import ToolError
from .entities import Location
from .fuzzy import full_score, fuzzy_score

EARTH_RADIUS_M = 6371000.0
#: Minimum partial / whole similarity for an address to count as found (VitaBench 2.0's geocoder's bar).
GEOCODE_PARTIAL, GEOCODE_FULL = 30, 20


def haversine_m(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Great-circle distance in metres (R = 6371 km), rounded to whole metres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dphi = p2 - p1
    dlmb = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlmb / 2) ** 2
    return float(round(2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))))


def distance_m(a: Location, b: Location) -> float:
    """Great-circle distance between two locations in metres."""
    return haversine_m(a.longitude, a.latitude, b.longitude, b.latitude)


def geocode(address: str, locations: Sequence[Location]) -> Location:
    """The best fuzzy match of ``address`` among ``locations``; an exact address wins outright.

    Raises:
        ToolError: Empty address, or nothing similar enough.
    """
    query = str(address).strip()
    if not query:
        raise ToolError("Address is empty")
    best: tuple[float, float, int] | None = None
    best_loc: Location | None = None
    for index, loc in enumerate(locations):
        if not loc.address:
            continue
        if loc.address == query:
            return loc
        partial, full = fuzzy_score(query, loc.address), full_score(query, loc.address)
        key = (partial, full, -index)  # ties go to the first listed
        if partial >= GEOCODE_PARTIAL and full >= GEOCODE_FULL and (best is None or key > best):
            best, best_loc = key, loc
    if best_loc is None:
        raise ToolError(f"Could not find coordinates for address {address!r}")
    return best_loc
