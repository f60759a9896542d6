"""The outcome (action-level) judge of ``--vita-judge-args outcome-reward``, with its faults fixed (the differences
from the official one are the outcome row of docs/official-profile.md).

It asks the judge model whether the agent's last *successful* creating write, as it stands in the final
state (a later payment or cancellation shows), satisfies each overall rubric; the reward becomes
``min(trajectory, outcome)`` when there is such an action. Unlike the official evaluator, a rubric about the
conversation may be declared not applicable, and the entity shown is the agent-visible view (no answer markers).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..domains.tool_kinds import declared_kinds
from ..messages import Message, ToolCall
from ..official.behaviour import OutcomeRules
from ..official.outcome import has_official_write, last_resolved_write, target_entity
from .asking import Answer, ask
from .base import JudgeCase, RubricVerdict
from .parsing import JudgeParseError, as_bool, match_items, rubric_items
from .prompts import HEADINGS, OUTCOME_OFFICIAL_SYSTEM, OUTCOME_SYSTEM, lang
from .render import chat, numbered, record_facts, render_call

if TYPE_CHECKING:
    from ..llm.client import LLMClient

OUTCOME_PREFIX = "[outcome] "


def is_creating_write(name: str, environment: Any = None) -> bool:
    """Whether a tool call creates an order, booking or reservation: its tool is declared ``kind="create"``
    (the official outcome judge's creating writes, plus taxi orders, which work here)."""
    kind = environment.tool_kind(name) if hasattr(environment, "tool_kind") else None
    return (kind or declared_kinds().get(name)) == "create"


@dataclass
class Action:
    """A creating write call and its tool result."""

    index: int
    call: ToolCall
    result: Message | None

    @property
    def succeeded(self) -> bool:
        return self.result is not None and not self.result.error


def write_actions(messages: list[Message], environment: Any = None) -> list[Action]:
    """Every creating write call of the trajectory, in order, with its result message."""
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    return [Action(index=i, call=call, result=results.get(call.id))
            for i, message in enumerate(messages) if message.role == "assistant"
            for call in message.tool_calls or [] if is_creating_write(call.name, environment)]


def _record_for(action: Action, facts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The final-state record this action created: the one whose id its result names, else the last new one."""
    text = action.result.text if action.result else ""
    for fact in facts:
        rid = str(fact.get("record_id") or "")
        if rid and re.search(rf"(?<![A-Za-z0-9_]){re.escape(rid)}(?![A-Za-z0-9_])", text):
            return fact
    created = [fact for fact in facts if fact.get("created_in_conversation")]
    return created[-1] if created else None


def _entity_view(environment: Any, record: dict[str, Any] | None) -> dict[str, Any] | None:
    """The agent-visible view of the chosen store / shop / hotel ..., with only the ordered products for an
    order and the whole catalogue for a reservation or booking (whose products are what the place offers)."""
    if record is None or not record.get("entity_id"):
        return None
    find = getattr(environment, "find_entity", None)
    entity = find(str(record["entity_id"])) if callable(find) else None
    if entity is None or not hasattr(entity, "view"):
        return None
    view = entity.view()
    products = view.pop("products", None)
    if isinstance(products, list):
        if record.get("record_type") in ("reservation", "book"):
            view["products"] = products
        else:
            wanted = {str(pid) for pid in record.get("product_ids") or []}
            view["ordered_products"] = [p for p in products if str(p.get("product_id")) in wanted]
    return view


@dataclass
class OutcomeResult:
    """The outcome check of one episode; without an action (``has_action`` false) the trajectory reward stands
    and ``reward`` is ``None``."""

    has_action: bool
    verdicts: list[RubricVerdict] = field(default_factory=list)
    reward: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def outcome_rubrics(case: JudgeCase) -> list[str]:
    """The overall rubrics (as officially); all rubrics when the subtask has no overall ones."""
    criteria = case.subtask.evaluation_criteria
    overall = [r for r in (criteria.overall_rubrics or [])] if criteria else []
    return list(dict.fromkeys(overall)) or case.subtask.rubrics()


def _answered(answer: Answer[list[RubricVerdict]], rubrics: list[str], detail: dict[str, Any]) -> OutcomeResult:
    """The outcome of a judged action: every rubric met, or a judge failure of each when the reply was unreadable
    (scored 0, as the official outcome judge scores it)."""
    notes = [f"outcome judge: {n}" for n in answer.notes]
    if answer.value is None:
        problem = f"outcome judge: {answer.problem}"
        verdicts = [RubricVerdict(text=OUTCOME_PREFIX + text, met=None, kind="outcome",
                                  reason=f"not judged: {problem}", judge_failure=problem) for text in rubrics]
        return OutcomeResult(has_action=True, verdicts=verdicts, reward=0.0, detail=detail, problems=[problem],
                             notes=notes)
    reward = 1.0 if all(v.met is True for v in answer.value) else 0.0
    return OutcomeResult(has_action=True, verdicts=answer.value, reward=reward, detail=detail, notes=notes)


#: This project's inputs and semantics.
OUR_RULES = OutcomeRules()


class OutcomeJudge:
    """Judges the last successful creating write against the overall rubrics.

    ``rules.official_inputs`` (``--vita-deviation outcome``) uses the official inputs and semantics instead
    (:mod:`pytest_vitabench.official.outcome`): the last resolvable write, failed or not, and no rubric is
    "not applicable".
    """

    def __init__(self, model: str, *, client: LLMClient, language: str = "en", params: dict[str, Any] | None = None,
                 rules: OutcomeRules = OUR_RULES):
        self.model = model
        self.client = client
        self.language = lang(language)
        self.params = {"temperature": 0.0, **(params or {})}
        self.rules = rules

    def judge(self, case: JudgeCase, *, seed: int, language: str | None = None) -> OutcomeResult:
        language = lang(language or self.language)
        rubrics = outcome_rubrics(case)
        official = self.rules.official_inputs
        found = (self._official_question if official else self._question)(case, rubrics, language)
        if isinstance(found, OutcomeResult):
            return found
        messages, detail = found
        if not rubrics:
            return OutcomeResult(has_action=True, verdicts=[], reward=1.0, detail=detail)
        answer = ask(self.client, model=self.model, messages=messages, seed=seed, language=language,
                     read=lambda value: _read(value, rubrics, applicable=not official), params=self.params)
        return _answered(answer, rubrics, detail)

    def _question(self, case: JudgeCase, rubrics: list[str], language: str
                  ) -> OutcomeResult | tuple[list[dict[str, Any]], dict[str, Any]]:
        """The request about the last successful creating write and its detail, or the outcome without one."""
        actions = write_actions(case.messages, case.environment)
        if not actions:
            return OutcomeResult(has_action=False, detail={"action": None})
        succeeded = [a for a in actions if a.succeeded]
        if not succeeded:
            last = actions[-1]
            said = last.result.text if last.result else "no result"
            reason = (f"{len(actions)} write call(s), none succeeded; the last, "
                      f"{render_call(last.call.name, last.call.arguments)}, returned: {said[:200]}")
            verdict = RubricVerdict(text=OUTCOME_PREFIX + "the agent's order or booking was created", met=False,
                                    reason=reason, kind="outcome")
            return OutcomeResult(has_action=True, verdicts=[verdict], reward=0.0,
                                 detail={"action": last.call.name, "succeeded": False})
        action = succeeded[-1]
        record = _record_for(action, record_facts(case.environment, case.subtask, case.time))
        detail = {"action": action.call.name, "message_index": action.index + 1, "record": record,
                  "succeeded": True}
        h = HEADINGS[language]
        outcome = {
            "tool_call": render_call(action.call.name, action.call.arguments),
            "final_record": record,
            "chosen": _entity_view(case.environment, record),
        }
        user = "\n\n".join([
            f"{h['request']}\n{case.subtask.instruction}",
            f"{h['action']}\n{json.dumps(outcome, ensure_ascii=False, indent=1, default=str)}",
            f"{h['rubrics']}\n{numbered(rubrics)}",
        ])
        return chat(OUTCOME_SYSTEM[language], user), detail

    def _official_question(self, case: JudgeCase, rubrics: list[str], language: str
                           ) -> OutcomeResult | tuple[list[dict[str, Any]], dict[str, Any]]:
        """As the official outcome judge: the last resolvable write (failed or not), target and chosen entity,
        all rubrics must hold of the outcome."""
        if not has_official_write(case.messages):
            return OutcomeResult(has_action=False, detail={"action": None, "style": "official"})
        resolved = last_resolved_write(case.messages, case.subtask.environment)
        if resolved is None:
            verdict = RubricVerdict(text=OUTCOME_PREFIX + "the agent's write call names an existing entity", met=False,
                                    reason="no write call resolves to an entity of the environment", kind="outcome")
            return OutcomeResult(has_action=True, verdicts=[verdict], reward=0.0,
                                 detail={"action": None, "style": "official", "resolved": False})
        index, name, arguments, chosen = resolved
        target = target_entity(case.subtask.environment, getattr(case.subtask, "target_product_ids", None))
        detail = {"action": name, "message_index": index + 1, "style": "official", "resolved": True}
        h = HEADINGS[language]
        user = "\n\n".join([
            f"{h['rubrics']}\n{numbered(rubrics)}",
            f"{h['target']}\n{json.dumps(target, ensure_ascii=False, indent=1, default=str)}",
            f"{h['chosen']}\n{render_call(name, arguments)}\n"
            f"{json.dumps(chosen, ensure_ascii=False, indent=1, default=str)}",
        ])
        return chat(OUTCOME_OFFICIAL_SYSTEM[language], user), detail


def _read(value: Any, rubrics: list[str], *, applicable: bool = True) -> list[RubricVerdict]:
    """Verdicts from the judge's reply; ``applicable=False`` (official) ignores any "not applicable"."""
    matched = match_items(rubric_items(value), rubrics)
    if not matched:
        raise JudgeParseError("no item of the reply matches a rubric")
    verdicts = []
    for pos, text in enumerate(rubrics):
        item = matched.get(pos)
        if item is None:
            verdicts.append(RubricVerdict(text=OUTCOME_PREFIX + text, met=None, kind="outcome",
                                          reason="not judged: the outcome judge gave no verdict for this rubric",
                                          judge_failure="the outcome judge gave no verdict for this rubric"))
        elif applicable and as_bool(item.raw.get("applicable")) is False:
            verdicts.append(RubricVerdict(text=OUTCOME_PREFIX + text, met=True, kind="outcome",
                                          reason=f"not about the outcome (judged on the trajectory): {item.reason}"))
        else:
            verdicts.append(RubricVerdict(text=OUTCOME_PREFIX + text, met=item.met, kind="outcome", reason=item.reason))
    return verdicts
