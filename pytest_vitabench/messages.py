"""The conversation data model shared by every role: agent, user simulator, tools and judges.

A trajectory is a flat list of :class:`Message`; it holds everything needed to re-judge a run later.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["assistant", "user", "tool"]

#: Any of these anywhere in a message ends the conversation, as in VitaBench 2.0.
STOP_TOKEN = "###STOP###"
USER_STOP_TOKENS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")


class ToolCall(BaseModel):
    """One function call requested by the agent.

    Attributes:
        arguments: Parsed JSON arguments, or the raw string when the model produced malformed JSON
            (the episode returns that to the agent as a counted tool error instead of crashing).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class Usage(BaseModel):
    """Tokens and cost of one LLM call or of many summed (zero for offline roles).

    Tokens count every call, cache hits included (what the model consumed to produce the answers);
    ``cost`` and ``requests`` count only calls paid for in this run, ``cached_requests`` the rest (answers
    from our own disk cache). ``cached_prompt_tokens`` is the part of ``prompt_tokens`` the provider served
    from its prompt cache (billed at its cached-input rate), as the response's usage reports it.
    """

    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float = 0.0
    requests: int = 0
    cached_requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{name: getattr(self, name) + getattr(other, name) for name in Usage.model_fields})


class Message(BaseModel):
    """One hop of a conversation.

    Attributes:
        role: ``assistant`` (the agent), ``user`` (the simulator) or ``tool`` (an environment result).
        content: The text; ``None`` for an assistant message that only calls tools.
        error: For a tool message, whether the call failed (unknown tool, bad arguments, refused).
        usage: What producing this message cost; not part of the conversation itself.
    """

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    error: bool = False
    usage: Usage | None = None

    @property
    def text(self) -> str:
        return self.content or ""

    def has_stop(self) -> bool:
        tokens = USER_STOP_TOKENS if self.role == "user" else (STOP_TOKEN,)
        return any(token in self.text for token in tokens)
