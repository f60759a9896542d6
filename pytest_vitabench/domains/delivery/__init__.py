"""The food-delivery domain: 12 delivery tools plus the 7 shared ones (19)."""

from __future__ import annotations

from ..spec import DomainSpec
from .models import DeliveryDB, Store, StoreProduct
from .tools import DeliveryTools

DB = DeliveryDB
SPEC = DomainSpec(name="delivery", db=DeliveryDB, tools=DeliveryTools, order_types=("delivery",))

__all__ = ["DB", "SPEC", "DeliveryDB", "DeliveryTools", "Store", "StoreProduct"]
