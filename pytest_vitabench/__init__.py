"""pytest-vitabench: the VitaBench 2.0 personalization benchmark as a pytest plugin.

The public surface is small; everything else lives in modules behind it::

    from pytest_vitabench import Agent, AgentSetup, Message, ToolCall, Memory, MemoryContext
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentSetup",
    "Judge",
    "Memory",
    "MemoryContext",
    "Message",
    "ToolCall",
    "UserSetup",
    "UserSimulator",
    "__version__",
]


def __getattr__(name: str) -> object:
    # Lazy re-exports keep `import pytest_vitabench` (done by pytest for every session) cheap.
    if name in ("Agent", "AgentSetup"):
        from .agents import base

        return getattr(base, name)
    if name in ("Message", "ToolCall"):
        from . import messages

        return getattr(messages, name)
    if name in ("Memory", "MemoryContext"):
        from .memory import base as memory_base

        return getattr(memory_base, name)
    if name in ("UserSetup", "UserSimulator"):
        from .users import base as users_base

        return getattr(users_base, name)
    if name == "Judge":
        from .judges.base import Judge

        return Judge
    raise AttributeError(name)
