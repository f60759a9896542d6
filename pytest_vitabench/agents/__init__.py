"""Agents: the protocol (:mod:`.base`) and the offline built-in agents (:mod:`.builtin`, :mod:`.answer`)."""

from __future__ import annotations

import warnings

from .answer import AnswerAgent
from .base import Agent, AgentSetup
from .builtin import BuiltinAgent, GroundtruthReaderAgent, LiteralAgent, ReferenceAgent

#: ``--vita-model`` names of the offline agents.
BUILTIN_AGENTS: dict[str, type[BuiltinAgent] | type[AnswerAgent]] = {
    "reference": ReferenceAgent,
    "literal": LiteralAgent,
    "groundtruth-reader": GroundtruthReaderAgent,
    "answer": AnswerAgent,
    "oracle": GroundtruthReaderAgent,  # deprecated alias, see DEPRECATED_AGENTS
}

#: Old built-in names that still work, with the message a run prints once.
DEPRECATED_AGENTS: dict[str, str] = {
    "oracle": "--vita-model oracle is deprecated: it is 'groundtruth-reader' (the reference agent reading the "
              "ground-truth preference tags with lexical heuristics, a ceiling only on suites phrased like ours); "
              "the true answer oracle is 'answer'",
}

__all__ = ["BUILTIN_AGENTS", "DEPRECATED_AGENTS", "Agent", "AgentSetup", "make_builtin_agent"]


def make_builtin_agent(name: str) -> Agent:
    """A new built-in agent by name (a deprecated name warns with :class:`DeprecationWarning`).

    Raises:
        KeyError: ``name`` is not a built-in agent.
    """
    try:
        agent_class = BUILTIN_AGENTS[name]
    except KeyError:
        known = ", ".join(n for n in BUILTIN_AGENTS if n not in DEPRECATED_AGENTS)
        raise KeyError(f"unknown built-in agent {name!r}; built-ins: {known}") from None
    if name in DEPRECATED_AGENTS:
        warnings.warn(DEPRECATED_AGENTS[name], DeprecationWarning, stacklevel=2)
    return agent_class()
