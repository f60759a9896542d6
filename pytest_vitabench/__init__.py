"""pytest-vitabench: the VitaBench 2.0 personalization benchmark as a pytest plugin.

The public API is what this package exports: everything a custom agent, user simulator, judge or memory
backend needs, and the reader of saved runs. Import it from here; the modules behind it may move::

    from pytest_vitabench import Agent, AgentSetup, Message, ToolCall, Memory, MemoryContext

pytest imports this package in every session, so the names load lazily (on first use); type checkers read
the imports under ``TYPE_CHECKING`` below and see every name with its real type.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .agents.base import Agent, AgentSetup
    from .domains.base import Environment, Tool, ToolError
    from .judges.base import Judge, JudgeCase, RubricVerdict, Verdict, reward_of
    from .judges.registry import JudgeOptions, JudgeSpec
    from .memory.base import EMPTY_MEMORY, Memory, MemoryContext
    from .memory.render import render_record, render_records
    from .memory.spec import MemoryOptions, MemorySpec
    from .messages import STOP_TOKEN, Message, ToolCall, Usage
    from .result import ItemResult
    from .runs import open_run
    from .suite.schema import BehaviorEvent, DailyRecord, DialogueTurn, EventRecord, SubTask, UserTask
    from .users.base import UserSetup, UserSimulator
    from .version import __version__

#: Each public name and the module that defines it (relative to this package).
_HOMES: dict[str, str] = {
    # agents
    "Agent": "agents.base", "AgentSetup": "agents.base",
    # the conversation
    "Message": "messages", "ToolCall": "messages", "Usage": "messages", "STOP_TOKEN": "messages",
    # tools and the environment they act on
    "Tool": "domains.base", "ToolError": "domains.base", "Environment": "domains.base",
    # user simulators
    "UserSimulator": "users.base", "UserSetup": "users.base",
    # judges
    "Judge": "judges.base", "JudgeCase": "judges.base", "Verdict": "judges.base", "RubricVerdict": "judges.base",
    "reward_of": "judges.base", "JudgeSpec": "judges.registry", "JudgeOptions": "judges.registry",
    # memory backends and the history records they ingest
    "Memory": "memory.base", "MemoryContext": "memory.base", "EMPTY_MEMORY": "memory.base",
    "render_record": "memory.render", "render_records": "memory.render",
    "MemorySpec": "memory.spec", "MemoryOptions": "memory.spec",
    "DailyRecord": "suite.schema", "EventRecord": "suite.schema", "BehaviorEvent": "suite.schema",
    "DialogueTurn": "suite.schema", "SubTask": "suite.schema", "UserTask": "suite.schema",
    # results and saved runs
    "ItemResult": "result", "open_run": "runs",
    "__version__": "version",
}

#: Kept equal to the keys of ``_HOMES`` (a test checks it).
__all__ = [
    "Agent", "AgentSetup", "BehaviorEvent", "DailyRecord", "DialogueTurn", "EMPTY_MEMORY", "Environment",
    "EventRecord", "ItemResult", "Judge", "JudgeCase", "Memory", "MemoryContext", "MemoryOptions", "MemorySpec",
    "Message", "RubricVerdict",
    "STOP_TOKEN", "SubTask", "Tool", "ToolCall", "ToolError", "Usage", "UserSetup", "UserSimulator", "UserTask",
    "Verdict", "__version__", "open_run", "render_record", "render_records", "reward_of",
    "JudgeOptions", "JudgeSpec",
]


if not TYPE_CHECKING:  # hidden from type checkers, so that a misspelled name is an error, not an ``object``

    def __getattr__(name: str) -> object:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
        globals()[name] = value  # the next lookup is a plain attribute
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
