"""The memory protocol that every backend implements (built-in, ``module:Class`` or entry point).

The harness calls :meth:`Memory.update` with a subtask's dataset ``interactions`` right before that subtask
runs (never with the agent's own conversations, as in VitaBench 2.0), then :meth:`Memory.read` with its
instruction as the query; the text goes into the agent's system prompt and the report's memory snapshot.
Optional, found by name: ``tools()`` (added to the subtask's environment), ``state()``/``load_state()``
with ``fingerprint()`` (checkpoints, :mod:`.snapshots`), ``usage`` (:func:`take_usage`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..domains.base import Tool
from ..messages import Usage
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
        trial: The trial whose memory chain this is (0 for deterministic backends).
        seed: The trial's seed, for the LLM calls of an update (part of their cache key).
    """

    user_id: str
    subtask_id: str
    now: str
    language: str = "en"
    groundtruth: dict[str, Any] | None = None
    trial: int = 0
    seed: int | None = None


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


def is_checkpointable(memory: object) -> bool:
    """Whether the backend can export and restore its state (``state`` and ``load_state``)."""
    return callable(getattr(memory, "state", None)) and callable(getattr(memory, "load_state", None))


def take_usage(memory: object) -> Usage:
    """The LLM usage the backend reported since the previous call (``Usage()`` if it reports none): the
    growth of its running ``usage`` total, remembered on the object, so a rebuilt chain bills its whole rebuild
    to the item that needed it."""
    total = getattr(memory, "usage", None)
    if not isinstance(total, Usage):
        return Usage()
    seen = getattr(memory, "_vita_usage_seen", Usage())
    try:
        memory._vita_usage_seen = total  # type: ignore[attr-defined]
    except AttributeError:  # a slotted custom backend: report the running total each time
        return total
    return Usage(**{name: getattr(total, name) - getattr(seen, name) for name in Usage.model_fields})
