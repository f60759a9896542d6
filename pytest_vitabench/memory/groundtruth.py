"""The ``groundtruth`` backend: the subtask's annotated preferences, the ceiling of the comparison.

It is the only place where ``personalized_preference_memory`` reaches an agent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..suite.schema import DailyRecord, EventRecord
from .base import EMPTY_MEMORY, MemoryContext
from .render import render_preferences
from .spec import MemoryOptions, MemorySpec


class GroundTruthMemory:
    def __init__(self, *, render: Callable[[dict[str, Any] | None], str] = render_preferences) -> None:
        """``render``: preferences to text, the empty case included (the harness's own wording's
        with its source)."""
        self._text = ""
        self._render = render

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        # The annotation of the subtask about to run replaces the previous one: it already reflects drift.
        self._text = self._render(context.groundtruth)

    def read(self, query: str | None = None) -> str:
        return self._text or EMPTY_MEMORY


def build(options: MemoryOptions) -> Callable[[], GroundTruthMemory]:
    wording = options.wording()
    return lambda: GroundTruthMemory(render=wording.render_preferences if wording else render_preferences)


SPEC = MemorySpec(name="groundtruth", build=build, deterministic=True, paired_reference=True, pivot=4,
                  shown=lambda subtask: render_preferences(subtask.groundtruth_preferences()))
