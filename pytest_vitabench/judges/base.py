"""The judge protocol and its verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from ..domains.base import Environment
from ..messages import Message
from ..options.values import JUDGE_FAILURE_POLICIES as JUDGE_FAILURE_POLICIES
from ..suite.schema import SubTask

#: The ``not_judgeable`` reason of a subtask without evaluation criteria (the leaderboard's metrics count such a
#: subtask in their own way: :mod:`pytest_vitabench.metrics`).
NO_CRITERIA = "the subtask has no evaluation criteria"
#: Terminations that score 0 without judging, as in VitaBench 2.0's evaluator.
FAILING_TERMINATIONS = ("max_steps", "invalid_agent_message", "too_many_errors")


class RubricVerdict(BaseModel):
    """One rubric's verdict.

    Attributes:
        text: The rubric (or, for ``kind="outcome"``, a description of the outcome check).
        met: ``True``/``False``, or ``None`` when this judge could not judge it ("not judged").
        kind: ``rubric`` for a suite rubric, ``outcome`` for a check of the final state against the
            suite's targets that no rubric states.
        judge_failure: Why the judge failed to return this verdict, or ``None``: the judge's failure, never
            the agent's (:func:`unscored_reward`).
    """

    text: str
    met: bool | None
    reason: str = ""
    kind: Literal["rubric", "outcome"] = "rubric"
    judge_failure: str | None = None

    @model_serializer(mode="wrap")
    def _without_empty_failure(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Most verdicts are no judge failure: reports and journals stay as they were without the key.
        data: dict[str, Any] = handler(self)
        if data.get("judge_failure") is None:
            data.pop("judge_failure", None)
        return data


class Verdict(BaseModel):
    rubrics: list[RubricVerdict]
    reward: float
    #: Set when nothing could be judged at all; the item is then reported as not judged.
    not_judgeable: str | None = None
    #: Judge-specific details (LLM judges: mode, votes, windows, trajectory and outcome rewards, problems).
    details: dict[str, Any] = Field(default_factory=dict)
    #: Set when the reward cannot be known because the judge failed on some rubric while every other one
    #: is met: the item is then *unscored* (left out of the metrics, counted apart), never failed.
    unscored: str | None = None

    @property
    def judge_failures(self) -> list[RubricVerdict]:
        return [r for r in self.rubrics if r.judge_failure]


def reward_of(verdicts: list[RubricVerdict]) -> float:
    """VitaBench 2.0's binary reward: 1.0 only if there is something judged and every judged check is met."""
    judged = [v for v in verdicts if v.met is not None]
    return 1.0 if judged and all(v.met for v in judged) else 0.0


def unscored_reward(verdicts: list[RubricVerdict], policy: str = "unscored") -> tuple[float, str | None]:
    """The binary reward of verdicts some of which the judge may have failed to return.

    A verdict met ``False`` by the judge decides the reward (0) whatever the failed ones would have said. When
    every returned verdict is met and some verdict is a judge failure, the reward is unknown: under
    ``unscored`` the item is unscored (reward 0.0 with a reason, left out of the metrics); under ``zero`` it
    scores 0 as VitaBench 2.0 does. Verdicts ``None`` for other reasons count as unmet.

    Returns:
        The reward and, when the item is unscored, why.

    Raises:
        ValueError: An unknown policy.
    """
    if policy not in JUDGE_FAILURE_POLICIES:
        raise ValueError(f"--vita-deviation judge-failures must be one of {', '.join(JUDGE_FAILURE_POLICIES)}, got "
                         f"{policy!r}")
    failed = [v for v in verdicts if v.judge_failure]
    returned = [v for v in verdicts if not v.judge_failure]
    if any(v.met is not True for v in returned):
        return 0.0, None
    if failed and policy == "unscored":
        why = "; ".join(dict.fromkeys(v.judge_failure or "" for v in failed))
        return 0.0, f"the judge failed to return {len(failed)} verdict(s): {why}"
    return (1.0 if verdicts and not failed else 0.0), None


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
