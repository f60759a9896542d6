"""The record of one item (subtask x memory backend x trial): what the reporter aggregates and the JSON
report stores. It travels from xdist workers to the controller as JSON on the test report."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from .judges.base import RubricVerdict, Verdict
from .messages import Message, Usage

Outcome = Literal["passed", "failed", "error", "skipped"]
ROLES = ("agent", "user", "judge", "memory")


class ItemResult(BaseModel):
    """One item's result (the ``results`` entries of the JSON report).

    ``outcome`` is ``error`` when the infrastructure failed; such an item still counts as a failure
    (reward 0) in every metric, never dropped from a denominator. ``skipped`` marks an item that the
    configured judge could not judge at all, or an *unscored* one (:attr:`unscored`): its reward hangs on
    a verdict the judge failed to return; both are left out of the metrics and counted apart.
    """

    nodeid: str
    suite: str = ""
    user_id: str
    subtask_id: str
    subtask_index: int = 0
    domain: str
    skills: list[str] = Field(default_factory=list)
    memory: str
    trial: int
    seed: int = 0
    reward: float = 0.0
    outcome: Outcome = "failed"
    rubrics: list[RubricVerdict] = Field(default_factory=list)
    termination: str = ""
    steps: int = 0
    tool_errors: int = 0
    usage: dict[str, Usage] = Field(default_factory=dict)
    duration_s: float = 0.0
    memory_snapshot: str = ""
    messages: list[Message] = Field(default_factory=list)
    error: str | None = None
    #: The Python traceback of an ``error`` outcome (shown with ``-v`` and kept in the report).
    traceback: str | None = None
    #: What an LLM judge did beyond the verdicts (windows, parse problems, trajectory/outcome rewards).
    judge_details: dict[str, Any] = Field(default_factory=dict)
    #: Where ``messages`` and ``memory_snapshot`` are stored in the run directory (report schema /2 keeps
    #: them out of the report; :func:`pytest_vitabench.runs.open_run` reads them back).
    messages_sha256: str | None = None
    snapshot_sha256: str | None = None
    #: Why a failed or errored item failed (:mod:`pytest_vitabench.report.failures`), decided where the
    #: trajectory and the subtask's data are at hand, so the controller can tabulate without them.
    failure_category: str | None = None
    #: The result was taken from an earlier run's journal by ``--vita-resume``.
    resumed: bool = False
    #: Times the episode crashed and started again (``--vita-deviation episode``; 0 by default).
    restarts: int = 0

    @property
    def unscored(self) -> bool:
        """Skipped because the judge failed to return a verdict the reward depends on (not the agent's fault)."""
        return self.outcome == "skipped" and any(v.judge_failure for v in self.rubrics)

    def record_verdict(self, verdict: Verdict) -> None:
        """Take the judge's verdict: its rubrics and reward, and the outcome they decide (passed only at 1.0)."""
        self.rubrics = verdict.rubrics
        self.reward = verdict.reward
        self.judge_details = verdict.details
        if verdict.not_judgeable or verdict.unscored:  # the judge's failure, not the agent's: out of the metrics
            self.outcome, self.error = "skipped", verdict.not_judgeable or f"unscored: {verdict.unscored}"
        else:
            self.outcome, self.error = ("passed" if verdict.reward == 1.0 else "failed"), None

    def failure_text(self) -> str:
        """The assertion-style message of a failed or errored item: each unmet rubric and why."""
        if self.outcome == "error":
            return f"infrastructure error: {self.error}"
        unmet = len([r for r in self.rubrics if r.met is False])
        unjudged = len([r for r in self.rubrics if r.met is None])
        if self.rubrics and unjudged == len(self.rubrics):  # "0 unmet" would read as if the agent met them
            counted = f"not judged ({unjudged} rubric(s))"
        else:
            counted = f"{unmet} unmet{f', {unjudged} not judged' if unjudged else ''} of {len(self.rubrics)}"
        lines = [f"reward {self.reward:.1f}: {counted} (termination: {self.termination}, steps: {self.steps})"]
        lines += [f"  x {v.text}\n      because: {v.reason}" for v in self.rubrics if v.met is False]
        lines += [f"  ? not judged: {v.text} ({v.reason})" for v in self.rubrics if v.met is None]
        return "\n".join(lines)

    def light(self) -> dict[str, Any]:
        """JSON-ready, without the trajectory and the memory snapshot when they are stored apart
        (what travels from a worker to the controller and goes into the report)."""
        exclude = {"messages", "memory_snapshot"} if self.messages_sha256 is not None else set()
        return self.model_dump(mode="json", exclude=exclude)
