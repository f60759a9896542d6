"""The ``rules`` judge: deterministic verdicts from the final state and the trajectory, no LLM.

For each rubric it runs the suite's machine check (``rubric_checks``, see ``suite/checks.py``). A rubric
without a check is reported as *not judged* (``met=None``), never passed. When some rubric cannot be
judged, the judge adds outcome checks from whatever the suite marks as the answer: ``target_product_ids``,
``*_type == "target"`` markers in the environment, or VitaBench 1.0 ``required_orders``. The reward is
the official binary one over the judged checks (REFERENCE.md §5.2), and 0 whenever the episode ended by
``max_steps`` or an invalid agent message (§5.1).
"""

from __future__ import annotations

import re
from typing import Any

from ..messages import Message
from ..suite.checks import Check, Condition, NoRecordCheck, RecordCheck, TextCheck, ToolCalledCheck
from ..suite.schema import SubTask
from .base import JudgeCase, RubricVerdict, Verdict, reward_of
from .naming import entity_names, with_names

#: Terminations that score 0 without judging (REFERENCE.md §5.1).
FAILING_TERMINATIONS = ("max_steps", "invalid_agent_message", "too_many_errors")
NOT_JUDGED_REASON = "no machine check for this rubric in the suite; an LLM judge (--vita-judge-model) can judge it"


class RulesJudge:
    """Deterministic judge over ``rubric_checks`` and the suite's target annotations."""

    name = "rules"

    def judge(self, case: JudgeCase) -> Verdict:
        subtask = case.subtask
        if subtask.evaluation_criteria is None and not subtask.rubric_checks:
            return Verdict(rubrics=[], reward=0.0, not_judgeable="the subtask has no evaluation criteria")
        records = case.environment.records()
        checks = {item.rubric: item.check for item in subtask.rubric_checks or []}
        rubrics = subtask.rubrics() + [text for text in checks if text not in subtask.rubrics()]
        verdicts = []
        for text in rubrics:
            check = checks.get(text)
            if check is None:
                verdicts.append(RubricVerdict(text=text, met=None, reason=NOT_JUDGED_REASON))
            else:
                met, reason = run_check(check, records, case.messages)
                verdicts.append(RubricVerdict(text=text, met=met, reason=reason))
        if not rubrics or any(v.met is None for v in verdicts):
            verdicts += outcome_verdicts(subtask, records)
        if not any(v.met is not None for v in verdicts):
            return Verdict(rubrics=verdicts, reward=0.0,
                           not_judgeable="no rubric has a machine check and the suite marks no target")
        if any(v.met is False for v in verdicts):
            names = entity_names(subtask.environment)
            verdicts = [v.model_copy(update={"reason": with_names(v.reason, names)}) if v.met is False else v
                        for v in verdicts]
        reward = reward_of(verdicts)
        if case.termination in FAILING_TERMINATIONS:
            reward = 0.0
        return Verdict(rubrics=verdicts, reward=reward)


def run_check(check: Check, records: list[dict[str, Any]], messages: list[Message]) -> tuple[bool, str]:
    """Evaluate one machine check; returns (met, reason)."""
    if isinstance(check, RecordCheck):
        return _record_check(check, records)
    if isinstance(check, NoRecordCheck):
        made = [r for r in _created(records) if check.record_type in (None, r["record_type"])]
        if made:
            return False, f"the agent created {_describe(made[0])}"
        return True, f"no {check.record_type or 'order or booking'} was created"
    if isinstance(check, TextCheck):
        pattern = re.compile(check.pattern, re.IGNORECASE)
        for index, message in enumerate(messages):
            if message.role == "assistant" and not message.tool_calls and message.content:
                if pattern.search(message.content) and (check.kind == "said" or "?" in message.content):
                    return True, f"message [{index}] matches: {message.content[:120]!r}"
        verb = "asked a question matching" if check.kind == "asked" else "said anything matching"
        return False, f"the agent never {verb} /{check.pattern}/"
    if isinstance(check, ToolCalledCheck):
        calls = [call for m in messages if m.role == "assistant"
                 for call in m.tool_calls or [] if call.name == check.name]
        for call in calls:
            args = call.arguments if isinstance(call.arguments, dict) else {}
            if not _failures(args, check.where):
                return True, f"called {check.name} with {args}"
        if not calls:
            return False, f"the agent never called {check.name}"
        return False, f"{check.name} was called, but never with arguments satisfying the check"
    raise TypeError(f"unknown check {check!r}")


def _created(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("new") and r.get("status") != "cancelled"]


def _describe(record: dict[str, Any]) -> str:
    return f"{record['record_type']} {record.get('record_id')} at {record.get('entity_id')}"


def _record_check(check: RecordCheck, records: list[dict[str, Any]]) -> tuple[bool, str]:
    candidates = [r for r in _created(records) if r["record_type"] == check.record_type]
    if not candidates:
        cancelled = [r for r in records if r.get("new") and r["record_type"] == check.record_type]
        tail = " (only cancelled ones)" if cancelled else ""
        return False, f"no {check.record_type} record was created{tail}"
    best: tuple[int, list[str], dict[str, Any]] | None = None
    for record in candidates:
        failures = _failures(record, check.where)
        if not failures:
            return True, f"{_describe(record)} satisfies it"
        if best is None or len(failures) < best[0]:
            best = (len(failures), failures, record)
    assert best is not None
    return False, f"{_describe(best[2])}: " + "; ".join(best[1])


def _failures(values: dict[str, Any], where: dict[str, Condition]) -> list[str]:
    failures = []
    for field, condition in where.items():
        problem = condition_problem(values.get(field), condition)
        if problem:
            failures.append(f"{field} {problem}")
    return failures


def condition_problem(value: Any, cond: Condition) -> str | None:
    """Return why ``value`` breaks ``cond``, or ``None`` when it holds."""
    as_list = value if isinstance(value, list) else ([] if value is None else [value])
    lowered = [str(v).lower() for v in as_list]
    if "eq" in cond.model_fields_set and value != cond.eq:
        return f"is {value!r}, expected {cond.eq!r}"
    if "ne" in cond.model_fields_set and value == cond.ne:
        return f"is {value!r}, must not be"
    if cond.in_ is not None and value not in cond.in_:
        return f"is {value!r}, expected one of {cond.in_}"
    if cond.not_in is not None and value in cond.not_in:
        return f"is {value!r}, must not be one of {cond.not_in}"
    if cond.contains is not None and not any(cond.contains.lower() in v for v in lowered):
        return f"is {value!r}, expected to contain {cond.contains!r}"
    if cond.not_contains is not None and any(cond.not_contains.lower() in v for v in lowered):
        return f"is {value!r}, must not contain {cond.not_contains!r}"
    if cond.includes_all is not None and not set(cond.includes_all) <= set(as_list):
        return f"is {as_list}, missing {sorted(set(cond.includes_all) - set(as_list), key=str)}"
    if cond.includes_any is not None and not set(cond.includes_any) & set(as_list):
        return f"is {as_list}, expected any of {cond.includes_any}"
    if cond.disjoint is not None and set(cond.disjoint) & set(as_list):
        return f"is {as_list}, must not include {sorted(set(cond.disjoint) & set(as_list), key=str)}"
    if cond.subset_of is not None and not set(as_list) <= set(cond.subset_of):
        return f"is {as_list}, only {cond.subset_of} allowed"
    try:
        if cond.between is not None and not (value is not None and cond.between[0] <= value <= cond.between[1]):
            return f"is {value!r}, expected between {cond.between[0]!r} and {cond.between[1]!r}"
        if cond.gte is not None and not (value is not None and value >= cond.gte):
            return f"is {value!r}, expected at least {cond.gte!r}"
        if cond.lte is not None and not (value is not None and value <= cond.lte):
            return f"is {value!r}, expected at most {cond.lte!r}"
    except TypeError:
        return f"is {value!r}, not comparable with the check's bounds"
    return None


_ENTITY_CONTAINERS = {"stores": "delivery", "shops": "instore", "hotels": "hotel", "attractions": "attraction",
                      "flights": "flight", "trains": "train", "taxis": "taxi"}


def outcome_verdicts(subtask: SubTask, records: list[dict[str, Any]]) -> list[RubricVerdict]:
    """Outcome checks from the suite's answer annotations, used where rubrics cannot be judged."""
    verdicts = []
    created = _created(records)
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    # 1.0 files repeat the same required orders in every expected state: judge each order once.
    for order in (subtask.evaluation_criteria.required_orders() if subtask.evaluation_criteria else []):
        if not isinstance(order, dict):
            continue
        kind = order.get("order_type", "delivery")
        wanted = [p.get("product_id") for p in order.get("products") or [] if isinstance(p, dict)]
        key = (kind, str(order.get("store_id")), tuple(sorted(map(str, wanted))))
        if key in seen:
            continue
        seen.add(key)
        text = f"[outcome] a {kind} order at {order.get('store_id')} with products {wanted}"
        match = [r for r in created if r["record_type"] == kind and r.get("entity_id") == order.get("store_id")
                 and set(wanted) <= set(r.get("product_ids") or [])]
        verdicts.append(RubricVerdict(text=text, kind="outcome", met=bool(match),
                                      reason=_outcome_reason(match, created)))
    targets = set(subtask.target_product_ids or []) or _marked_targets(subtask.environment)
    if targets and not verdicts:
        text = f"[outcome] the agent ordered or booked the target item(s) {sorted(targets)}"
        match = [r for r in created if targets & set(r.get("product_ids") or []) or r.get("entity_id") in targets]
        verdicts.append(RubricVerdict(text=text, kind="outcome", met=bool(match),
                                      reason=_outcome_reason(match, created)))
    return verdicts


def _outcome_reason(match: list[dict[str, Any]], created: list[dict[str, Any]]) -> str:
    if match:
        return f"{_describe(match[0])} matches"
    if created:
        return "the agent's records do not match: " + ", ".join(
            f"{_describe(r)} with {r.get('product_ids')}" for r in created[:3])
    return "the agent created no order or booking"


def _marked_targets(environment: dict[str, Any]) -> set[str]:
    """Product ids (or entity ids) whose hidden ``*_type`` marker says ``target``."""
    targets: set[str] = set()
    for container in _ENTITY_CONTAINERS:
        for entity_id, entity in (environment.get(container) or {}).items():
            if not isinstance(entity, dict):
                continue
            products = [p for p in entity.get("products") or [] if isinstance(p, dict)]
            marked = [p.get("product_id") for p in products if p.get("product_type") == "target"]
            targets.update(str(pid) for pid in marked if pid)
            if not marked and any(str(v) == "target" for k, v in entity.items() if k.endswith("_type")):
                targets.add(str(entity_id))
    return targets
