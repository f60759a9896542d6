"""The in-store domain: 16 instore tools plus the 7 shared ones (23)."""

from __future__ import annotations

from typing import Any

from ..shared import DomainEnvironment, load_db, shared_tools
from .models import BookInfo, InStoreDB, ReservationInfo, Shop, ShopProduct
from .tools import domain_tools

DB = InStoreDB

__all__ = [
    "DB",
    "BookInfo",
    "InStoreDB",
    "ReservationInfo",
    "Shop",
    "ShopProduct",
    "build",
    "domain_tools",
    "validate",
]


def validate(environment: dict[str, Any]) -> None:
    """Validate an instore environment dict; raises ``pydantic.ValidationError``."""
    InStoreDB.model_validate(environment)


def build(
    environment: dict[str, Any], *, user_id: str, time: str, seed: int, language: str = "en"
) -> DomainEnvironment:
    """A fresh instore environment over a deep copy of ``environment`` (see ``build_environment``)."""
    db = load_db(InStoreDB, environment, user_id=user_id, time=time)
    env = DomainEnvironment(
        domain="instore", time=db.time, user_id=db.user_id, db=db, seed=seed, language=language
    )
    env.add_tools(shared_tools(env) + domain_tools(env))
    return env
