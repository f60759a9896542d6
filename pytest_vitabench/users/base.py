"""The user-simulator protocol."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..messages import Message


@dataclass(frozen=True)
class UserSetup:
    """What the simulated user knows for one subtask.

    Attributes:
        instruction: The verbatim first request (vague by design).
        user_intention: Hidden facts revealed only when the agent asks about them (proactive subtasks).
        user_id: Given when the agent asks for the user's identity.
        persona: The user profile.
        proactive: Whether this is a proactive subtask.
        language: ``en`` or ``zh``.
        seed: The trial's seed.
        scenario_is_hidden: ``instruction`` is the user's hidden scenario rather than a message to send
            (converted VitaBench 1.0 tasks): an LLM user writes its own first message from it.
        history_length: How many messages of the subtask's ``message_history`` precede the conversation.
        greeting: The agent's opening line when it is not ours (the harness's own wording's); empty: ours.
        write_tools: Names of the environment's state-changing tools (``Tool.kind`` in ``WRITE_KINDS``), so a
            simulator can tell whether the agent's action has completed or been refused; empty means
            "ask the built-in tools' declared kinds".
    """

    instruction: str
    user_id: str
    user_intention: str = ""
    persona: dict[str, Any] = field(default_factory=dict)
    proactive: bool = False
    language: str = "en"
    seed: int = 0
    scenario_is_hidden: bool = False
    write_tools: frozenset[str] = frozenset()
    greeting: str = ""
    history_length: int = 0


@runtime_checkable
class UserSimulator(Protocol):
    """Plays the user. It sees the agent's text messages, never tool calls or tool results."""

    def respond(self, setup: UserSetup, messages: list[Message]) -> Message | Awaitable[Message]:
        """Return the next user message; ``###STOP###`` in it ends the conversation."""
        ...
