"""An LLM judge watched by the rules judge: each verdict carries the machine checks' verdicts beside it.

Where a suite gives a rubric a machine check (``rubric_checks``: ``suites/demo``, ``suites/paper``, anything
``vitabench synth`` writes), the rules judge's verdict is the ground truth of that rubric. Wrapping the LLM
judge in :class:`AuditedJudge` records that truth in ``Verdict.details["rules"]`` at the cost of a few
deterministic checks and no request, so every LLM-judged run can report how often its judge agreed with the
truth (:mod:`pytest_vitabench.agreement`), and ``--vita-fail-under judge.kappa=0.8`` can gate on it. The
scores themselves are the LLM judge's: nothing here changes a verdict.
"""

from __future__ import annotations

from typing import Any

from .base import FAILING_TERMINATIONS, Judge, JudgeCase, Verdict
from .rubric_kinds import rubric_kind
from .rules import run_check


def rules_truth(case: JudgeCase) -> list[dict[str, Any]]:
    """The rules judge's verdict on every machine-checked rubric of the case, with the rubric's kind.

    Empty when the subtask has no machine check, and when the episode ended in a way that scores 0 without
    judging (the LLM judge judges nothing then, so there is nothing to compare).
    """
    checks = case.subtask.rubric_checks or []
    if not checks or case.termination in FAILING_TERMINATIONS:
        return []
    records = case.environment.records()
    out = []
    for item in checks:
        met, reason = run_check(item.check, records, case.messages)
        out.append({"text": item.rubric, "met": met, "reason": reason, "kind": rubric_kind(item.check, item.rubric)})
    return out


class AuditedJudge:
    """``judge`` with the rules judge's verdicts on the machine-checked rubrics in ``details["rules"]``.

    Args:
        judge: The judge whose verdicts are scored (an LLM judge).
    """

    def __init__(self, judge: Judge):
        self.inner = judge
        self.name = getattr(judge, "name", type(judge).__name__)

    def __repr__(self) -> str:
        return f"AuditedJudge({self.inner!r})"

    def judge(self, case: JudgeCase) -> Verdict:
        verdict = self.inner.judge(case)
        truth = rules_truth(case)
        if truth:
            verdict.details["rules"] = truth
        return verdict
