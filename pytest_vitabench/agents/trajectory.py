"""What a built-in agent's conversation so far says, read afresh from the messages on every turn.

The built-in agents keep no state between calls: the request, the tool results, our own questions and
recommendations and the user's answers to them are all recovered from the trajectory (by the fixed openings
of the agents' own messages below).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..messages import Message

ASK_PREFIX = "Before I go ahead"
RECOMMEND_PREFIX = "I recommend"
ID_QUESTION = "Could you tell me your user ID so I can complete this for you?"

_REJECT = re.compile(r"\b(no|not|n't|don't|dont|rather|else|another|different|hmm|wrong|instead)\b", re.I)
_ACCEPT = re.compile(r"^\W*(yes|yeah|yep|sure|ok|okay|great|perfect|fine|go ahead|sounds good|please|do it|book it|"
                     r"order it|that works|alright|all right)\b", re.I)


@dataclass
class ToolResult:
    name: str
    arguments: dict[str, Any]
    content: str
    error: bool
    index: int

    def data(self) -> Any:
        return parsed_json(self.content)


@dataclass
class Trajectory:
    """What the conversation so far says, read from the messages alone."""

    instruction: str = ""
    results: list[ToolResult] = field(default_factory=list)
    calls: set[str] = field(default_factory=set)
    asked_details: int | None = None  # index of our clarification question
    asked_id: bool = False
    recommendations: list[int] = field(default_factory=list)  # indexes of our recommendation messages
    finished: bool = False  # we already confirmed the completed request
    messages: list[Message] = field(default_factory=list)

    @classmethod
    def read(cls, messages: list[Message]) -> Trajectory:
        out = cls(messages=messages)
        pending: dict[str, tuple[str, dict[str, Any]]] = {}
        for index, message in enumerate(messages):
            if message.role == "user" and not out.instruction:
                out.instruction = message.text
            elif message.role == "assistant" and message.tool_calls:
                for call in message.tool_calls:
                    args = call.arguments if isinstance(call.arguments, dict) else {}
                    pending[call.id] = (call.name, args)
                    out.calls.add(call_key(call.name, args))
            elif message.role == "assistant" and index > 0:
                text = message.text
                if text.startswith(ASK_PREFIX):
                    out.asked_details = index
                elif text.startswith(RECOMMEND_PREFIX):
                    out.recommendations.append(index)
                elif text == ID_QUESTION:
                    out.asked_id = True
                elif "Is there anything else" in text:
                    out.finished = True
            elif message.role == "tool":
                name, args = pending.get(message.tool_call_id or "", (message.name or "", {}))
                out.results.append(ToolResult(name=name or message.name or "", arguments=args, content=message.text,
                                           error=message.error or message.text.startswith("Error"), index=index))
        return out

    def reply_to(self, index: int) -> str | None:
        for message in self.messages[index + 1:]:
            if message.role == "user":
                return message.text
            if message.role == "assistant" and not message.tool_calls:
                return None
        return None

    def rejections(self) -> int:
        """How many of our recommendations the user's reply turned down (a reply that accepts never does)."""
        replies = [self.reply_to(i) for i in self.recommendations]
        return sum(1 for reply in replies if reply is not None and not _ACCEPT.search(reply) and _REJECT.search(reply))

    def results_named(self, *names: str) -> list[ToolResult]:
        return [r for r in self.results if r.name in names]


def parsed_json(content: str) -> Any:
    """A tool result's JSON, or None when it is not JSON."""
    try:
        return json.loads(content)
    except (TypeError, ValueError):
        return None


def call_key(name: str, args: dict[str, Any] | str) -> str:
    """A tool call's identity (name and arguments), to tell whether it was already made."""
    return name + json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
