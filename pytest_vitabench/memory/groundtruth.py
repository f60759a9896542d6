"""The ``groundtruth`` backend: the subtask's annotated preferences, the ceiling of the comparison.

It is the only place where ``personalized_preference_memory`` reaches an agent.
"""

from __future__ import annotations

from ..suite.schema import DailyRecord, EventRecord
from .base import EMPTY_MEMORY, MemoryContext
from .render import render_preferences


class GroundTruthMemory:
    name = "groundtruth"

    def __init__(self) -> None:
        self._text = ""

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        # The annotation of the subtask about to run replaces the previous one: it already reflects drift.
        self._text = render_preferences(context.groundtruth)

    def read(self, query: str | None = None) -> str:
        return self._text or EMPTY_MEMORY
