"""Agents: the protocol (:mod:`.base`) and the offline built-in agents (:mod:`.builtin`)."""

from __future__ import annotations

from .base import Agent, AgentSetup
from .builtin import BuiltinAgent, LiteralAgent, OracleAgent, ReferenceAgent

#: ``--vita-model`` names of the offline agents.
BUILTIN_AGENTS: dict[str, type[BuiltinAgent]] = {
    "reference": ReferenceAgent,
    "literal": LiteralAgent,
    "oracle": OracleAgent,
}

__all__ = ["BUILTIN_AGENTS", "Agent", "AgentSetup", "make_builtin_agent"]


def make_builtin_agent(name: str) -> Agent:
    """A new built-in agent by name.

    Raises:
        KeyError: ``name`` is not a built-in agent.
    """
    try:
        return BUILTIN_AGENTS[name]()
    except KeyError:
        raise KeyError(f"unknown built-in agent {name!r}; built-ins: {', '.join(BUILTIN_AGENTS)}") from None
