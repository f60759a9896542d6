"""One judge question: a chat call under the ``judge`` role, tolerant parsing, and one repair retry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .parsing import JudgeParseError, parse_reply
from .prompts import REPAIR, lang

if TYPE_CHECKING:
    from ..llm.client import LLMClient

T = TypeVar("T")


@dataclass
class Answer(Generic[T]):
    """What a judge question produced: the parsed ``value``, or ``None`` and the ``problem`` when even the
    repair retry gave nothing readable; the repairs it needed (``notes``) and the LLM ``calls`` made."""

    value: T | None
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    calls: int = 0


def ask(client: LLMClient, *, model: str, messages: list[dict[str, Any]], seed: int, language: str,
        read: Callable[[Any], T], params: dict[str, Any]) -> Answer[T]:
    """Ask the judge model and read its JSON answer with ``read`` (which raises :class:`JudgeParseError` for a
    wrong shape), retrying once with a request for valid JSON. ``seed`` keys the cache and is never sent to
    the endpoint, as officially.

    Raises:
        LLMError: The endpoint failed after its retries (an infrastructure error, not a verdict).
    """
    answer: Answer[T] = Answer(value=None)
    conversation = list(messages)
    for attempt in range(2):
        completion = client.complete("judge", model=model, messages=conversation, seed=seed, send_seed=False,
                                     **params)
        answer.calls += 1
        try:
            answer.value, notes = parse_reply(completion.text, read)
        except JudgeParseError as exc:
            problem = str(exc)
            if completion.truncated:
                problem += " (the reply was cut off at the token limit)"
            answer.problem = problem
            if attempt == 0:
                answer.notes.append(f"first reply unreadable ({problem}); asked once more for valid JSON")
                conversation = [*conversation, {"role": "assistant", "content": completion.text},
                                {"role": "user", "content": REPAIR[lang(language)].format(problem=problem)}]
            continue
        answer.problem = None
        answer.notes.extend(notes)
        if completion.truncated and not notes:
            answer.notes.append("the reply hit the token limit but was complete enough to read")
        return answer
    answer.problem = f"unreadable after one repair retry: {answer.problem}"
    return answer
