"""The in-store domain: 16 instore tools plus the 7 shared ones (23)."""

from __future__ import annotations

from ..spec import DomainSpec
from .models import InStoreDB
from .tools import InstoreTools

SPEC = DomainSpec(name="instore", db=InStoreDB, tools=InstoreTools, order_types=("instore",))

__all__ = ["SPEC"]
