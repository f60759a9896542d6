"""The agent protocol: what the episode asks of the agent under test.

An agent is stateless with respect to a subtask: the episode hands it the setup (system prompt,
tools, memory text) and the whole conversation so far, and it returns the next assistant message.
Fresh state per subtask (as officially: only the memory persists) therefore holds by construction. ``respond`` may be a
coroutine function; the episode awaits it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..messages import Message


@dataclass(frozen=True)
class AgentSetup:
    """Everything the agent may know when a subtask starts.

    Attributes:
        system_prompt: The full system prompt (policy, time, user profile, memory section).
        tools: OpenAI-style tool schemas of this subtask's domain plus the memory's tools.
        memory: The memory text injected into the system prompt (also inside ``system_prompt``).
        time: The environment clock with weekday, e.g. ``2026-03-02 11:35:00 Monday``.
        user_profile: The account profile shown to the agent.
        proactive: Whether the proactive policy is in force.
        language: ``en`` or ``zh``.
        seed: The trial's seed, for agents that sample.
        groundtruth: The ground-truth preferences; set only for agents that declare
            ``reads_groundtruth = True`` (``groundtruth-reader``), never for the agent under test.
        hides_greeting: The conversation's first message is the opening greeting, which the agent does not see
            (VitaBench 2.0 shows it to the user simulator only); set under the harness's own wording.
        official_format: Requests in VitaBench 2.0's message form (see
            :func:`~pytest_vitabench.agents.openai_agent.to_openai_messages`); set under the harness's own wording.
        write_tools: Names of the offered tools that change state (``Tool.kind`` in ``WRITE_KINDS``): their results
            hold our own records, not options to choose from.
        answer: The subtask's answer key (:class:`~pytest_vitabench.suite.answer_key.AnswerKey`); set only
            for agents that declare ``reads_answer = True`` (the ``answer`` built-in), never for the agent
            under test.
    """

    system_prompt: str
    tools: list[dict[str, Any]]
    memory: str
    time: str
    user_profile: dict[str, Any] = field(default_factory=dict)
    proactive: bool = False
    language: str = "en"
    seed: int = 0
    groundtruth: dict[str, Any] | None = None
    write_tools: frozenset[str] = frozenset()
    answer: Any = None
    hides_greeting: bool = False
    official_format: bool = False


def say(content: str) -> Message:
    """An assistant message of text alone."""
    return Message(role="assistant", content=content)


@runtime_checkable
class Agent(Protocol):
    """The agent under test."""

    def respond(self, setup: AgentSetup, messages: list[Message]) -> Message | Awaitable[Message]:
        """Return the next assistant message (text, tool calls, or both) given the conversation."""
        ...
