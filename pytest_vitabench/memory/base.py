"""The memory protocol that every backend implements (built-in, ``module:Class`` or entry point).

The harness calls :meth:`Memory.update` with a subtask's dataset ``interactions`` right before that
subtask runs (never with the agent's own conversations, REFERENCE.md §3.1), then :meth:`Memory.read`
with the subtask's instruction as the query; the text it returns is injected into the agent's system
prompt and saved in the report as the memory snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..domains.base import Tool
from ..suite.schema import DailyRecord, EventRecord

#: What ``read`` returns when nothing is known yet.
EMPTY_MEMORY = "No user preference information available yet."


@dataclass(frozen=True)
class MemoryContext:
    """Facts about the moment of an update.

    Attributes:
        user_id: The user whose memory this is.
        subtask_id: The subtask about to run.
        now: The environment time of that subtask.
        language: ``en`` or ``zh``.
        groundtruth: The subtask's ``personalized_preference_memory``. Only the ``groundtruth``
            backend may read it; every other backend must ignore it.
    """

    user_id: str
    subtask_id: str
    now: str
    language: str = "en"
    groundtruth: dict[str, Any] | None = None


@runtime_checkable
class Memory(Protocol):
    """A user's long-term memory."""

    def update(self, records: list[DailyRecord | EventRecord], context: MemoryContext) -> None:
        """Ingest the interactions that happened since the previous subtask."""
        ...

    def read(self, query: str | None = None) -> str:
        """Return the memory text for the agent; ``query`` is the subtask instruction."""
        ...


def memory_tools(memory: object) -> list[Tool]:
    """The tools a backend offers the agent (``read_preference_memory`` ...), if it has any."""
    provider = getattr(memory, "tools", None)
    return list(provider()) if callable(provider) else []
