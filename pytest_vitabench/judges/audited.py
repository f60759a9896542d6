"""An LLM judge watched by the rules judge: each verdict carries the machine checks' verdicts beside it.

Where a suite gives a rubric a machine check, the rules judge's verdict is the ground truth of that rubric.
:class:`AuditedJudge` records it in ``Verdict.details["rules"]`` (a few deterministic checks, no request), so
every LLM-judged run reports its agreement (:mod:`pytest_vitabench.report.agreement`) and ``judge.*`` gates can
check it. Nothing here changes a verdict.
"""

from __future__ import annotations

import re
from typing import Any

from ..suite.checks import Check, NoRecordCheck, RecordCheck, TextCheck, ToolCalledCheck
from .base import FAILING_TERMINATIONS, Judge, JudgeCase, Verdict
from .rules import run_check

# The kind of a machine-checked rubric, for the audit's breakdown: an LLM judge is not equally good at every
# kind (an order field shows in a tool call, a rating floor needs the catalogue). It is read from how the rules
# judge checks the rubric, so it needs no annotation; the wording only tells a rating floor from other
# merchant checks.
#: Record fields and the kind of rubric a condition on them checks, most specific first.
_FIELD_KINDS = (
    ("total_price", "price cap"),
    ("address", "address"),
    ("customer_count", "quantity"),
    ("total_quantity", "quantity"),
    ("quantities", "quantity"),
    ("dates", "time"),
    ("time", "time"),
    ("dispatch_time", "time"),
    ("delivery_time", "time"),
    ("status", "payment or status"),
    ("note", "note"),
    ("attributes", "product options"),
    ("product_ids", "phrase the product carries"),
    ("entity_id", "merchant choice"),
)
_RATING = re.compile(r"\brat(ed|ing)\b|评分", re.IGNORECASE)

#: Every kind :func:`rubric_kind` returns, in display order.
KINDS = ("rating floor", "merchant choice", "phrase the product carries", "product options", "price cap", "address",
         "time", "quantity", "payment or status", "note", "proactive question", "statement", "no order", "tool call",
         "other record field")


def rubric_kind(check: Check, text: str = "") -> str:
    """The kind of the rubric ``text`` checked by ``check`` (one of :data:`KINDS`)."""
    if isinstance(check, TextCheck):
        return "proactive question" if check.kind == "asked" else "statement"
    if isinstance(check, NoRecordCheck):
        return "no order"
    if isinstance(check, ToolCalledCheck):
        return "tool call"
    assert isinstance(check, RecordCheck)
    fields = set(check.where)
    for field, kind in _FIELD_KINDS:
        if field in fields:
            if kind == "merchant choice" and _RATING.search(text):
                return "rating floor"
            return kind
    return "other record field"


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
