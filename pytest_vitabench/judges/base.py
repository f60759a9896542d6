"""The judge protocol and its verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from ..domains.base import Environment
from ..messages import Message
from ..suite.schema import SubTask

#: The ``not_judgeable`` reason of a subtask without evaluation criteria (the official metrics count such a
#: subtask in their own way: :mod:`pytest_vitabench.metrics`).
NO_CRITERIA = "the subtask has no evaluation criteria"


class RubricVerdict(BaseModel):
    """One rubric's verdict.

    Attributes:
        text: The rubric (or, for ``kind="outcome"``, a description of the outcome check).
        met: ``True``/``False``, or ``None`` when this judge could not judge it ("not judged").
        reason: Why, in a sentence a person can act on.
        kind: ``rubric`` for a suite rubric, ``outcome`` for a check of the final state against the
            suite's targets that no rubric states.
    """

    text: str
    met: bool | None
    reason: str = ""
    kind: Literal["rubric", "outcome"] = "rubric"


class Verdict(BaseModel):
    rubrics: list[RubricVerdict]
    reward: float
    #: Set when nothing could be judged at all; the item is then reported as not judged.
    not_judgeable: str | None = None
    #: Judge-specific details (LLM judges: mode, votes, windows, trajectory and outcome rewards, problems).
    details: dict[str, Any] = Field(default_factory=dict)

    @property
    def unmet(self) -> list[RubricVerdict]:
        return [r for r in self.rubrics if r.met is False]

    @property
    def not_judged(self) -> list[RubricVerdict]:
        return [r for r in self.rubrics if r.met is None]


def reward_of(verdicts: list[RubricVerdict]) -> float:
    """The official binary reward: 1.0 only if there is something judged and every judged check is met."""
    judged = [v for v in verdicts if v.met is not None]
    return 1.0 if judged and all(v.met for v in judged) else 0.0


@dataclass(frozen=True)
class JudgeCase:
    """What a judge may look at after an episode.

    ``seed`` is the trial's seed: LLM judges key their cache by it (without sending it), so repeated
    trials are judged independently and a re-run of the same trial is judged from the cache.
    """

    subtask: SubTask
    messages: list[Message]
    environment: Environment
    termination: str
    time: str
    extra: dict[str, Any] | None = None
    seed: int = 0


@runtime_checkable
class Judge(Protocol):
    def judge(self, case: JudgeCase) -> Verdict: ...
