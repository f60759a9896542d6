"""Is every annotated subtask solvable? Replay its answer key through the real episode and judge.

For each subtask with an answer annotation (``required_orders``, ``rubric_checks``, ``target_product_ids``
or ``*_type`` target markers) this runs the ``answer`` agent against the ``scripted`` user in a fresh
environment and scores the trajectory with the ``rules`` judge, exactly as ``pytest --vita-model answer``
would (memory ``none``, trial 0). A reward below 1.0 means no agent can solve the subtask as annotated here:
the key could not be derived (a required product the store does not sell, a record no tool can make), a
tool refused the right answer, or the judge rejected it. Each such subtask is named with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .suite.loader import LoadedSuite


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
        out = [head]
        for item in self.unsolvable[:limit]:
            out.append(f"    unsolvable: {item.user_id}::{item.subtask_id}: {item.reason}")
        if len(self.unsolvable) > limit:
            out.append(f"    ... and {len(self.unsolvable) - limit} more")
        return out


def check_solvability(suite: LoadedSuite) -> SolvabilityReport:
    """Replay every annotated subtask's answer key (see the module docstring)."""
    from .agents.answer import AnswerAgent
    from .config import RunConfig
    from .judges.rules import RulesJudge
    from .runner import ItemRunner
    from .suite.answer_key import answer_key
    from .users.scripted import ScriptedUser

    report = SolvabilityReport()
    runner = ItemRunner(RunConfig.model_validate({"model": "answer", "memory": ["none"], "trials": 1}))
    agent, user_simulator, judge = AnswerAgent(), ScriptedUser(), RulesJudge()
    for user in suite.users:
        task = user.task
        if task is None:
            continue
        for index, sub in enumerate(task.subtasks):
            user_id = str(sub.environment.get("user_id") or task.user_id)
            key = answer_key(sub, user_id=user_id, time=user.times[index], profile=task.user_profile)
            if not key.source:
                report.unannotated += 1
                continue
            report.annotated += 1
            result = runner.run(nodeid=f"{user.key}::{sub.subtask_id}", suite=suite, user=user, index=index,
                                memory_name="none", trial=0, agent=agent, user_simulator=user_simulator, judge=judge)
            if result.outcome == "passed":
                report.solved += 1
                continue
            reasons = list(key.problems)
            if result.outcome == "error":
                reasons.append(f"the replay crashed: {result.error}")
            elif result.outcome == "skipped" and not key.problems:
                reasons.append(f"not judgeable: {result.error}")
            # the key's own problems come first; the judge's verdicts add what else went wrong
            reasons += [f"{v.text}: {v.reason}" for v in result.rubrics if v.met is False]
            report.unsolvable.append(Unsolvable(task.id, sub.subtask_id, "; ".join(dict.fromkeys(reasons))
                                                or f"reward {result.reward}"))
    return report
