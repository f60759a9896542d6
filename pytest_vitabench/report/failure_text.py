"""The text pytest shows for a failed or errored item, by verbosity.

An infrastructure error shows its traceback tail only when it is not one of the LLM client's own, whose
message already names the role, model, endpoint and server reply.
"""

from __future__ import annotations

from ..messages import Message
from ..result import ItemResult

#: Messages of the conversation shown under ``-vv``.
TAIL_MESSAGES = 8
_MESSAGE_CHARS = 300


def one_line(result: ItemResult) -> str:
    """The ``-q`` text: e.g. ``reward 0.0: unmet "The lunch is vegetarian" (+1 more)``."""
    if result.outcome == "error":
        first = (result.error or "unknown error").strip().splitlines()[0]
        return f"infrastructure error: {first}"
    unmet = [v for v in result.rubrics if v.met is False]
    if not unmet:
        judged = "not judged, " if result.rubrics and all(v.met is None for v in result.rubrics) else ""
        return f"reward {result.reward:.1f} ({judged}termination: {result.termination}, steps: {result.steps})"
    more = f" (+{len(unmet) - 1} more)" if len(unmet) > 1 else ""
    return f"reward {result.reward:.1f}: unmet {unmet[0].text!r}{more}"


def _message_line(index: int, message: Message) -> str:
    parts = []
    if message.content:
        parts.append(" ".join(message.content.split()))
    for call in message.tool_calls or []:
        parts.append(f"-> {call.name}({call.arguments})")
    text = " ".join(parts) or "(empty)"
    if len(text) > _MESSAGE_CHARS:
        text = text[:_MESSAGE_CHARS] + "..."
    return f"  [{index}] {message.role}: {text}"


def conversation_tail(result: ItemResult, n: int = TAIL_MESSAGES) -> list[str]:
    """The last ``n`` messages, one line each."""
    if not result.messages:
        return []
    start = max(0, len(result.messages) - n)
    lines = [f"conversation (last {len(result.messages) - start} of {len(result.messages)} messages):"]
    lines += [_message_line(i, m) for i, m in enumerate(result.messages[start:], start=start)]
    return lines


def failure_text(result: ItemResult, verbosity: int, traceback_tail: str = "") -> str:
    """The failure text of ``result`` at pytest's ``verbosity`` (-1 for ``-q``, 0 default, 2 for ``-vv``);
    ``traceback_tail`` is the last lines of an error's traceback."""
    if verbosity < 0:
        return one_line(result)
    lines = [result.failure_text()]
    if result.outcome == "error":
        if verbosity >= 1 and result.traceback:  # -v: the whole traceback, whatever the error
            lines.append(result.traceback.rstrip())
        elif traceback_tail and not (result.error or "").startswith("LLMError"):
            lines.append(traceback_tail)
    if verbosity >= 2:
        lines += conversation_tail(result)
    return "\n".join(lines)
