"""Agents: the protocol (:mod:`.base`) and the offline built-in agents (:mod:`.builtin`, :mod:`.answer`)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..options.parts import AgentSettings
from ..options.values import BUILTIN_ROLE_NAMES
from .answer import AnswerAgent
from .base import Agent, AgentSetup
from .builtin import BuiltinAgent, GroundtruthReaderAgent, LiteralAgent, ReferenceAgent

#: Old built-in names that still work, with the message a run prints once.
DEPRECATED_AGENTS: dict[str, str] = {
    "oracle": "--vita-model oracle is deprecated: it is 'groundtruth-reader' (the reference agent reading the "
              "ground-truth preference tags with lexical heuristics, a ceiling only on suites phrased like ours); "
              "the true answer oracle is 'answer'",
}
#: The agent each deprecated name stands for.
_RENAMED = {"oracle": GroundtruthReaderAgent.name}
_CLASSES: dict[str, type[BuiltinAgent] | type[AnswerAgent]] = {
    agent.name: agent for agent in (ReferenceAgent, LiteralAgent, GroundtruthReaderAgent, AnswerAgent)}
#: ``--vita-model`` names of the offline agents (the names are declared in
#: :data:`pytest_vitabench.options.values.BUILTIN_ROLE_NAMES`).
BUILTIN_AGENTS: dict[str, type[BuiltinAgent] | type[AnswerAgent]] = {
    name: _CLASSES[_RENAMED.get(name, name)] for name in BUILTIN_ROLE_NAMES["--vita-model"]}

if TYPE_CHECKING:
    from ..llm.client import LLMClient

__all__ = ["BUILTIN_AGENTS", "DEPRECATED_AGENTS", "Agent", "AgentSetup", "agent_for", "calls_llm",
           "make_builtin_agent"]


def calls_llm(settings: AgentSettings) -> bool:
    """Whether the agent the settings select is a model at the endpoint (not a built-in)."""
    return settings.model not in BUILTIN_AGENTS


def agent_for(settings: AgentSettings, *, client: Callable[[], LLMClient],
              params: dict[str, Any] | None = None) -> Agent:
    """The agent under test: a built-in, or the model at the endpoint (``client`` gives the run's one client,
    asked only then), sending ``params`` with its requests."""
    if not calls_llm(settings):
        return make_builtin_agent(settings.model)
    from .openai_agent import OpenAIAgent  # the openai package: only when a model is under test

    return OpenAIAgent(settings.model, client=client(), params=params)


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
