"""The food-delivery domain: 12 delivery tools plus the 7 shared ones (19)."""

from __future__ import annotations

from ..spec import DomainSpec
from .models import DeliveryDB
from .tools import DeliveryTools

SPEC = DomainSpec(name="delivery", db=DeliveryDB, tools=DeliveryTools, order_types=("delivery",))

__all__ = ["SPEC"]
