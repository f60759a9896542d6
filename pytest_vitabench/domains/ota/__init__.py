"""The travel (``ota``) domain: 37 tools over hotels, attractions, flights, trains and taxis, plus the
7 shared ones (44)."""

from __future__ import annotations

from ..spec import DomainSpec
from .models import ORDER_KINDS, OtaDB
from .tools import OtaTools
from .views import ota_order_view

SPEC = DomainSpec(name="ota", db=OtaDB, tools=OtaTools, order_view=ota_order_view, order_types=tuple(ORDER_KINDS))

__all__ = ["SPEC"]
