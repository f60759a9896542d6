"""The in-store domain: 16 instore tools plus the 7 shared ones (23)."""

from __future__ import annotations

from ..spec import DomainSpec
from .models import BookInfo, InStoreDB, ReservationInfo, Shop, ShopProduct
from .tools import InstoreTools

DB = InStoreDB
SPEC = DomainSpec(name="instore", db=InStoreDB, tools=InstoreTools, order_types=("instore",))

__all__ = ["DB", "SPEC", "BookInfo", "InStoreDB", "InstoreTools", "ReservationInfo", "Shop", "ShopProduct"]
