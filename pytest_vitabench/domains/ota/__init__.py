"""The travel (``ota``) domain: 37 tools over hotels, attractions, flights, trains and taxis, plus the
7 shared ones (44)."""

from __future__ import annotations

from typing import Any

from ..shared import load_db, shared_tools
from .models import (
    Attraction,
    AttractionProduct,
    Flight,
    FlightProduct,
    Hotel,
    HotelProduct,
    OtaDB,
    Taxi,
    TaxiProduct,
    Train,
    TrainProduct,
)
from .tools import OtaEnvironment, domain_tools, ota_order_view

DB = OtaDB

__all__ = [
    "DB",
    "Attraction",
    "AttractionProduct",
    "Flight",
    "FlightProduct",
    "Hotel",
    "HotelProduct",
    "OtaDB",
    "OtaEnvironment",
    "Taxi",
    "TaxiProduct",
    "Train",
    "TrainProduct",
    "build",
    "domain_tools",
    "ota_order_view",
    "validate",
]


def validate(environment: dict[str, Any]) -> None:
    """Validate an ota environment dict.

    Raises:
        pydantic.ValidationError: With error locations relative to ``environment``.
    """
    OtaDB.model_validate(environment)


def build(
    environment: dict[str, Any], *, user_id: str, time: str, seed: int, language: str = "en"
) -> OtaEnvironment:
    """A fresh ota environment over a deep copy of ``environment``.

    Args:
        environment: The subtask's ``environment`` dict (never mutated).
        user_id: The user the tools serve; overrides ``environment["user_id"]``.
        time: The simulated now, ``YYYY-MM-DD HH:MM:SS``; overrides ``environment["time"]`` when non-empty.
        seed: The trial seed; new order ids derive from it.
        language: ``en`` or ``zh``.

    Returns:
        The environment with 44 tools (37 ota + 7 shared).
    """
    db = load_db(OtaDB, environment, user_id=user_id, time=time or None)
    env = OtaEnvironment(domain="ota", time=db.time, user_id=db.user_id, db=db, seed=seed, language=language)
    env.add_tools(shared_tools(env) + domain_tools(env))
    return env
