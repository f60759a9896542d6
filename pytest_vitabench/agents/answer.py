"""The ``answer`` built-in agent: carries out a subtask's answer key, the proof that tools and judge accept it.

Not a baseline: only an agent that declares ``reads_answer = True`` is handed the key (``AgentSetup.answer``).
It asks the key's questions, makes each planned write and its follow-ups with the id the tool returned (a
record created paid is not paid again; a refused write is retried as its planned alternative), then confirms,
or says which write failed and why: a reward below 1.0 always comes with a trajectory that shows why.
"""

from __future__ import annotations

import re
from typing import Any

from ..messages import STOP_TOKEN, Message, ToolCall
from ..suite.answer_key import CREATED, AnswerKey, PlannedCall
from .base import AgentSetup, say
from .trajectory import parsed_json

DONE_TEXT = "Done: everything you asked for has been placed and paid. Is there anything else I can help you with?"


class AnswerAgent:
    """Performs the answer key of the subtask (see the module docstring)."""

    name = "answer"
    reads_answer = True
    #: Reads the ids it follows up on from JSON tool results, so ``--vita-deviation tool-results`` never applies to it.
    reads_json_results = True

    def respond(self, setup: AgentSetup, messages: list[Message]) -> Message:
        key = setup.answer
        if not isinstance(key, AnswerKey):
            return say(f"Sorry, this subtask has no answer annotations to follow. {STOP_TOKEN}")
        said = [m.text for m in messages if m.role == "assistant" and not m.tool_calls]
        if DONE_TEXT in said:
            return say(f"You're welcome, goodbye! {STOP_TOKEN}")
        if key.problems and not key.calls:
            return say(f"Sorry, I cannot complete this: {'; '.join(key.problems)} {STOP_TOKEN}")
        for question in key.questions:
            if question not in said:
                return say(question)
        results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
        failures = []
        for index, planned in enumerate(key.calls):
            step = _next_step(f"answer_{index}", planned, results)
            if isinstance(step, Message):
                return step
            if step:
                failures.append(step)
        if failures:
            return say(f"Sorry, I could not complete {'; '.join(failures)}. Everything else you asked for is "
                         f"done. {STOP_TOKEN}")
        return say(DONE_TEXT)


def _next_step(call_id: str, planned: PlannedCall, results: dict[str, Message]) -> Message | str | None:
    """The next message for one planned call and its follow-ups; None once all of them succeeded, or why
    they failed."""
    result = results.get(call_id)
    if result is None:
        return _call(call_id, planned.tool, planned.arguments)
    what = planned.describes or planned.tool
    created = record_field(result.text, planned.id_field) if planned.id_field else ""
    # A refusal may come back as plain text rather than an error (VitaBench 2.0's tools' failed assertions):
    # a create call that names no created record failed either way.
    if result.error or (planned.id_field and not created):
        if planned.instead is not None:
            return _next_step(f"{call_id}_instead", planned.instead, results)
        return f"{what} ({planned.tool}: {result.text[:300]})"
    status = record_field(result.text, "status")
    for offset, follow in enumerate(planned.then):
        if follow.when_status and status and status != follow.when_status:
            continue
        follow_id = f"{call_id}_{offset}"
        done = results.get(follow_id)
        if done is None:
            arguments = {k: (created if v == CREATED else v) for k, v in follow.arguments.items()}
            return _call(follow_id, follow.tool, arguments)
        if done.error:
            return f"{what} ({follow.tool}: {done.text[:300]})"
    return None


def record_field(text: str, field: str) -> str:
    """A field of the record a tool returned: its JSON, else ``field=value`` or ``field: value`` (quoted or
    not) in its string form, as VitaBench 2.0's tool results read."""
    data = parsed_json(text)
    if isinstance(data, dict):
        return str(data.get(field) or "")
    found = re.search(rf"\b{re.escape(field)}['\"]?\s*[:=]\s*['\"]?([^'\",\s)]+)", text or "")
    return found.group(1) if found else ""


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> Message:
    return Message(role="assistant", tool_calls=[ToolCall(id=call_id, name=name, arguments=dict(arguments))])
