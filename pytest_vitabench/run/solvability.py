"""Is every annotated subtask solvable? Replay its answer key through the real episode and judge.

Each annotated subtask is run as ``pytest --vita-model answer`` would; a reward below 1.0 means no agent can
solve it as annotated. One that passes only with a default tool check turned off names that check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..suite.loader import LoadedSuite

if TYPE_CHECKING:
    from ..result import ItemResult


@dataclass
class Unsolvable:
    user_id: str
    subtask_id: str
    reason: str


@dataclass
class SolvabilityReport:
    """Outcome of replaying the answer keys of one suite."""

    annotated: int = 0
    solved: int = 0
    unannotated: int = 0
    unsolvable: list[Unsolvable] = field(default_factory=list)

    def lines(self, limit: int = 20) -> list[str]:
        head = (f"  answers      {self.solved} of {self.annotated} annotated subtasks solved by their answer key "
                f"(reward 1.0 under the rules judge)")
        if self.unannotated:
            head += f"; {self.unannotated} without answer annotations"
        out = [head, *(f"    unsolvable: {item.user_id}::{item.subtask_id}: {item.reason}"
                       for item in self.unsolvable[:limit])]
        if len(self.unsolvable) > limit:
            out.append(f"    ... and {len(self.unsolvable) - limit} more")
        return out


def check_solvability(suite: LoadedSuite) -> SolvabilityReport:
    """Replay every annotated subtask's answer key (see the module docstring)."""
    from ..agents.answer import AnswerAgent
    from ..judges.registry import make_judge
    from ..memory.registry import NO_MEMORY
    from ..options.config import RunConfig
    from ..options.values import TOOL_CHECKS
    from ..suite.answer_key import answer_key_of
    from ..users.scripted import ScriptedUser
    from .runner import ItemRunner

    report = SolvabilityReport()
    agent, user_simulator, judge = AnswerAgent(), ScriptedUser(), make_judge("rules")
    runners: dict[tuple[str, ...], ItemRunner] = {}

    def replay(user: Any, index: int, checks: list[str]) -> ItemResult:
        runner = runners.get(tuple(checks))
        if runner is None:
            runner = runners[tuple(checks)] = ItemRunner(RunConfig.model_validate(
                {"model": "answer", "memory": [NO_MEMORY], "trials": 1, "tool_checks": checks}))
        sub = user.task.subtasks[index]
        return runner.run(nodeid=f"{user.key}::{sub.subtask_id}", suite=suite, user=user, index=index,
                          memory_name=NO_MEMORY, trial=0, agent=agent, user_simulator=user_simulator, judge=judge)

    default_checks = list(TOOL_CHECKS)
    for user in suite.users:
        task = user.task
        if task is None:
            continue
        for index, sub in enumerate(task.subtasks):
            key = answer_key_of(user, index)
            if not key.source:
                report.unannotated += 1
                continue
            report.annotated += 1
            result = replay(user, index, default_checks)
            if result.outcome == "passed":
                report.solved += 1
                continue
            unchecked = replay(user, index, [])
            if unchecked.outcome == "passed":
                culprits = [c for c in default_checks
                            if replay(user, index, [k for k in default_checks if k != c]).outcome == "passed"]
                named = ", ".join(f"the {c!r} check ({TOOL_CHECKS[c]})" for c in culprits) or "the checks together"
                refusals = "; ".join(dict.fromkeys(_refusals(result))) or _reasons(key.problems, result)
                report.unsolvable.append(Unsolvable(task.id, sub.subtask_id, (
                    f"unsolvable under the default tool checks: {named} refuses it: {refusals}; "
                    "reaches 1.0 with --vita-deviation tool-checks=official")))
                continue
            report.unsolvable.append(Unsolvable(task.id, sub.subtask_id, _reasons(key.problems, unchecked)))
    return report


def _reasons(problems: list[str], result: ItemResult) -> str:
    """Why a replay did not reach 1.0: the key's own problems first, then what the judge found."""
    reasons = list(problems)
    if result.outcome == "error":
        reasons.append(f"the replay crashed: {result.error}")
    elif result.outcome == "skipped" and not problems:
        reasons.append(f"not judgeable: {result.error}")
    reasons += [f"{v.text}: {v.reason}" for v in result.rubrics if v.met is False]
    return "; ".join(dict.fromkeys(reasons)) or f"reward {result.reward}"


def _refusals(result: ItemResult) -> list[str]:
    """The tool errors of a replay, each with the call it answered."""
    calls = {c.id: c.name for m in result.messages if m.role == "assistant" for c in m.tool_calls or []}
    return [f"{calls.get(m.tool_call_id or '', 'a tool')}: {m.text[:200]}" for m in result.messages
            if m.role == "tool" and m.error]
