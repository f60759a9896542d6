"""The food-delivery domain: 12 delivery tools plus the 7 shared ones (19)."""

from __future__ import annotations

from typing import Any

from ..shared import DomainEnvironment, load_db, shared_tools
from .models import DeliveryDB, Store, StoreProduct
from .tools import domain_tools

DB = DeliveryDB

__all__ = ["DB", "DeliveryDB", "Store", "StoreProduct", "build", "domain_tools", "validate"]


def validate(environment: dict[str, Any]) -> None:
    """Validate a delivery environment dict; raises ``pydantic.ValidationError``."""
    DeliveryDB.model_validate(environment)


def build(
    environment: dict[str, Any], *, user_id: str, time: str, seed: int, language: str = "en"
) -> DomainEnvironment:
    """A fresh delivery environment over a deep copy of ``environment`` (see ``build_environment``)."""
    db = load_db(DeliveryDB, environment, user_id=user_id, time=time)
    env = DomainEnvironment(
        domain="delivery", time=db.time, user_id=db.user_id, db=db, seed=seed, language=language
    )
    env.add_tools(shared_tools(env) + domain_tools(env))
    return env
