"""The ``answer`` built-in agent: carries out a subtask's answer key, the proof that tools and judge accept it.

It is not a baseline: it reads the hidden answer annotations (through :mod:`..suite.answer_key`, handed
over as ``AgentSetup.answer`` only to an agent that declares ``reads_answer = True``) and performs exactly
the required writes with valid arguments. Its script, derived afresh from the trajectory at every call:

1. ask the key's questions first (a proactive subtask always gets one), one turn each;
2. make each planned write; after it, the calls on the record it created (payment, a required
   cancellation), with the id the tool returned;
3. confirm and ask whether anything else is needed, then end with ``###STOP###``.

A tool error or an unsolvable key ends the conversation with the reason, so a reward below 1.0 always
comes with a trajectory that shows why.
"""

from __future__ import annotations

import json
from typing import Any

from ..messages import STOP_TOKEN, Message, ToolCall
from ..suite.answer_key import CREATED, AnswerKey, PlannedCall
from .base import AgentSetup

DONE_TEXT = "Done: everything you asked for has been placed and paid. Is there anything else I can help you with?"


class AnswerAgent:
    """Performs the answer key of the subtask (see the module docstring)."""

    name = "answer"
    reads_answer = True
    #: Reads the ids it follows up on from JSON tool results, so ``--vita-tool-results`` never applies to it.
    reads_json_results = True

    def respond(self, setup: AgentSetup, messages: list[Message]) -> Message:
        key = setup.answer
        if not isinstance(key, AnswerKey):
            return _text(f"Sorry, this subtask has no answer annotations to follow. {STOP_TOKEN}")
        said = [m.text for m in messages if m.role == "assistant" and not m.tool_calls]
        if DONE_TEXT in said:
            return _text(f"You're welcome, goodbye! {STOP_TOKEN}")
        if key.problems and not key.calls:
            return _text(f"Sorry, I cannot complete this: {'; '.join(key.problems)} {STOP_TOKEN}")
        for question in key.questions:
            if question not in said:
                return _text(question)
        results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
        for index, planned in enumerate(key.calls):
            step = _next_step(f"answer_{index}", planned, results)
            if isinstance(step, Message):
                return step
        return _text(DONE_TEXT)


def _next_step(call_id: str, planned: PlannedCall, results: dict[str, Message]) -> Message | None:
    """The next message for one planned call and its follow-ups; None once all of them succeeded."""
    result = results.get(call_id)
    if result is None:
        return _call(call_id, planned.tool, planned.arguments)
    if result.error:
        what = planned.describes or planned.tool
        return _text(f"Sorry, I could not complete {what}: {result.text[:300]} {STOP_TOKEN}")
    created = _record_id(result.text, planned.id_field) if planned.id_field else ""
    for offset, follow in enumerate(planned.then):
        follow_id = f"{call_id}_{offset}"
        done = results.get(follow_id)
        if done is None:
            if planned.id_field and not created:
                return _text(f"Sorry, {planned.tool} returned no {planned.id_field}. {STOP_TOKEN}")
            arguments = {k: (created if v == CREATED else v) for k, v in follow.arguments.items()}
            return _call(follow_id, follow.tool, arguments)
        if done.error:
            return _text(f"Sorry, {follow.tool} failed: {done.text[:300]} {STOP_TOKEN}")
    return None


def _record_id(text: str, field: str) -> str:
    try:
        data: Any = json.loads(text)
    except (TypeError, ValueError):
        return ""
    return str(data.get(field) or "") if isinstance(data, dict) else ""


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> Message:
    return Message(role="assistant", tool_calls=[ToolCall(id=call_id, name=name, arguments=dict(arguments))])


def _text(content: str) -> Message:
    return Message(role="assistant", content=content)
