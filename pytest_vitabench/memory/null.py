"""The ``none`` backend (VitaBench 2.0's ``null``): the agent gets no memory, the floor of the comparison."""

from __future__ import annotations

from ..suite.schema import DailyRecord, EventRecord
from .base import MemoryContext
from .spec import MemorySpec, official_aliases


class NoMemory:
    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        return None

    def read(self, query: str | None = None) -> str:
        return ""


SPEC = MemorySpec(name="none", aliases=official_aliases("none"), build=lambda options: NoMemory,
                  deterministic=True, prompt_budget=lambda options: 0, paired_reference=True, pivot=0)
