"""The ``rules`` judge: deterministic verdicts from the final state and the trajectory, no LLM.

Each rubric runs the suite's machine check (``rubric_checks``); a rubric without one is *not judged*
(``met=None``), never passed, and outcome checks from the suite's answer annotations are added
(:func:`outcome_verdicts`). The reward is VitaBench 2.0's binary one over the judged checks (1 when every one
is met), and 0 whenever the episode ended by ``max_steps`` or an invalid agent message
(:data:`.base.FAILING_TERMINATIONS`).
"""

from __future__ import annotations

import re
from typing import Any

from ..messages import Message
from ..suite.checks import Check, Condition, NoRecordCheck, RecordCheck, TextCheck, ToolCalledCheck
from ..suite.required_orders import (
    POOLED_KINDS,
    RequiredOrder,
    UninterpretableOrder,
    optional_orders_of,
    required_orders_of,
    visit_kinds,
)
from ..suite.schema import ENTITY_CONTAINERS, SubTask
from .base import FAILING_TERMINATIONS, NO_CRITERIA, JudgeCase, RubricVerdict, Verdict, reward_of
from .naming import entity_names, with_names

NOT_JUDGED_REASON = "no machine check for this rubric in the suite; an LLM judge (--vita-judge-model) can judge it"


class RulesJudge:
    """Deterministic judge over ``rubric_checks`` and the suite's target annotations."""

    name = "rules"

    def judge(self, case: JudgeCase) -> Verdict:
        subtask = case.subtask
        if subtask.evaluation_criteria is None and not subtask.rubric_checks:
            return Verdict(rubrics=[], reward=0.0, not_judgeable=NO_CRITERIA)
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
            verdicts += outcome_verdicts(subtask, records, coordinates=_order_coordinates(case.environment))
        if not any(v.met is not None for v in verdicts):
            unreadable = [v.reason.removeprefix("not judged: ") for v in verdicts if v.kind == "outcome"]
            why = "; ".join(unreadable) if unreadable else "the suite marks no target"
            return Verdict(rubrics=verdicts, reward=0.0, not_judgeable=f"no rubric has a machine check and {why}")
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


def outcome_verdicts(subtask: SubTask, records: list[dict[str, Any]],
                     coordinates: dict[str, tuple[float, float]] | None = None) -> list[RubricVerdict]:
    """Outcome checks from the suite's answer annotations, used where rubrics cannot be judged.

    VitaBench 1.0 ``required_orders`` come first, each judged on what VitaBench 2.0's tools can make of it
    (``docs/required-records.md``): a delivery order or a visit is one record, an in-store or travel order is
    pooled over the new orders at its entity (:func:`pooled_order_verdict`). A record that cannot be
    interpreted is *not judged*, with the reason. Without required orders, the target markers or
    ``target_product_ids`` say what must be ordered.
    """
    verdicts = []
    aliases = entity_aliases(subtask.environment)
    required = required_orders_of(subtask)
    readable = [o for o in required if isinstance(o, RequiredOrder)]
    optional = [o for o in optional_orders_of(subtask) if isinstance(o, RequiredOrder)]
    for order in required:
        if isinstance(order, UninterpretableOrder):
            verdicts.append(RubricVerdict(text="[outcome] a required order", kind="outcome", met=None,
                                          reason=f"not judged: the required order cannot be interpreted: {order}"))
        elif order.kind in POOLED_KINDS and not order.existing:
            verdicts.append(pooled_order_verdict(order, readable + optional, records, aliases=aliases))
        else:
            verdicts.append(required_order_verdict(order, records, aliases=aliases, coordinates=coordinates,
                                                   kinds=visit_kinds(order, subtask.environment)))
    for problem in optional_orders_of(subtask):
        if isinstance(problem, UninterpretableOrder):
            verdicts.append(RubricVerdict(text="[outcome] an optional order", kind="outcome", met=None,
                                          reason=f"not judged: the optional order cannot be interpreted, so it "
                                                 f"allows nothing: {problem}"))
    created = _created(records)
    targets = set(subtask.target_product_ids or []) or _marked_targets(subtask.environment)
    if targets and not verdicts:
        text = f"[outcome] the agent ordered or booked the target item(s) {sorted(targets)}"
        match = [r for r in created if targets & set(r.get("product_ids") or []) or r.get("entity_id") in targets]
        verdicts.append(RubricVerdict(text=text, kind="outcome", met=bool(match),
                                      reason=_outcome_reason(match, created)))
    return verdicts


def _same_text(got: Any, wanted: str) -> bool:
    """Loose equality of free text (addresses, notes, options): case, spacing, containment and small
    differences (a district written twice) tolerated, as a judge of functional equivalence would."""
    from rapidfuzz import fuzz

    a, b = " ".join(str(got or "").lower().split()), " ".join(wanted.lower().split())
    return bool(a) and (a == b or b in a or a in b or fuzz.ratio(a, b) >= 90)


_MOMENT = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})")


def _minute(value: Any) -> str:
    """A date and time to the minute, zero-padded (1.0 data writes ``2024-12-2 18:00:00``)."""
    text = str(value or "").replace("T", " ").strip()
    found = _MOMENT.match(text)
    if found is None:
        return text[:16]
    year, month, day, hour, minute = (int(part) for part in found.groups())
    return f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}"


def entity_aliases(environment: dict[str, Any]) -> dict[str, set[str]]:
    """Each entity's ids: its key in the container and its own id field, which 1.0 data sometimes differ."""
    out: dict[str, set[str]] = {}
    for container in ENTITY_CONTAINERS:
        for key, entity in (environment.get(container) or {}).items():
            if not isinstance(entity, dict):
                continue
            own = entity.get(f"{container[:-1]}_id") or entity.get("store_id") or entity.get("shop_id")
            ids = {str(key)} | ({str(own)} if own else set())
            for one in ids:
                out.setdefault(one, set()).update(ids)
    return out


def _order_coordinates(environment: Any) -> dict[str, tuple[float, float]]:
    """Delivery coordinates of every order in the final state (addresses are judged by place, not only text)."""
    orders = getattr(getattr(environment, "db", None), "orders", None) or {}
    return {str(oid): (order.location.longitude, order.location.latitude) for oid, order in orders.items()
            if getattr(order, "location", None) is not None}


def _near(a: tuple[float, float] | None, b: tuple[float, float] | None, metres: float = 100.0) -> bool:
    from ..domains.geo import haversine_m

    return a is not None and b is not None and haversine_m(a[0], a[1], b[0], b[1]) <= metres


def _line_problems(product: Any, line: int, record: dict[str, Any]) -> list[str]:
    """What order line ``line`` of ``record`` gets wrong of a required product (quantity, date, options)."""
    problems = []
    quantities = record.get("quantities") or []
    attributes = record.get("attributes") or []
    if product.quantity is not None and line < len(quantities) and quantities[line] != product.quantity:
        problems.append(f"quantity of {product.product_id} is {quantities[line]}, expected {product.quantity}")
    if product.date and product.date not in (record.get("dates") or []):
        problems.append(f"{product.product_id} is for {record.get('dates')}, expected {product.date}")
    if product.attributes and not (line < len(attributes) and _same_text(attributes[line], product.attributes)):
        got = attributes[line] if line < len(attributes) else ""
        problems.append(f"options of {product.product_id} are {got!r}, expected {product.attributes!r}")
    return problems


def required_order_problems(order: RequiredOrder, record: dict[str, Any], *,
                            aliases: dict[str, set[str]] | None = None,
                            coordinates: dict[str, tuple[float, float]] | None = None) -> list[str]:
    """Why ``record`` is not the required ``order`` (empty when it is)."""
    problems = []
    same_entity = (aliases or {}).get(order.entity_id, set()) | {order.entity_id}
    if record.get("entity_id") not in same_entity:
        problems.append(f"at {record.get('entity_id')}, expected {order.entity_id}")
    pids = [str(p) for p in record.get("product_ids") or []]
    used: set[int] = set()
    for product in order.products:
        lines = [i for i, pid in enumerate(pids) if pid == product.product_id and i not in used]
        if not lines:
            problems.append(f"product {product.product_id} missing (has {pids})")
            continue
        # a product may appear on several lines with different options: take the line that fits best
        at = min(lines, key=lambda i: len(_line_problems(product, i, record)))
        used.add(at)
        problems += _line_problems(product, at, record)
    if order.address and not _same_text(record.get("address"), order.address) and not _near(
            (coordinates or {}).get(str(record.get("record_id"))), order.coordinates):
        problems.append(f"delivered to {record.get('address')!r}, expected {order.address!r}")
    if order.kind in ("reservation", "book"):
        if _minute(record.get("time")) != _minute(order.time):
            problems.append(f"time is {record.get('time')!r}, expected {order.time!r}")
        if order.customer_count is not None and record.get("customer_count") != order.customer_count:
            problems.append(f"for {record.get('customer_count')} people, expected {order.customer_count}")
    return problems


def _lines(record: dict[str, Any]) -> list[tuple[str, int, str | None]]:
    """(product id, quantity, date) of each line of an order record."""
    pids = [str(p) for p in record.get("product_ids") or []]
    quantities = record.get("quantities") or []
    dates = record.get("dates") or []
    return [(pid, int(quantities[i]) if i < len(quantities) else 1,
             str(dates[i])[:10] if len(dates) == len(pids) else None) for i, pid in enumerate(pids)]


def pooled_order_verdict(order: RequiredOrder, siblings: list[RequiredOrder], records: list[dict[str, Any]], *,
                         aliases: dict[str, set[str]] | None = None) -> RubricVerdict:
    """Whether the new orders at a required in-store or travel order's entity, together, hold it.

    VitaBench 2.0's tools for these kinds (``create_instore_product_order``, ``create_hotel_order`` ...) take one
    product per call, so a required order of several products, or several lines of one product, can only be
    met by several orders. The rule, over the live (or, for a required cancellation, the cancelled) new
    orders of the kind at the required entity:

    * each required product (and date, when the record gives one) is there, its quantity summed over those
      orders equal to the quantity all the required orders at the entity ask for together;
    * no such order holds a product (or a date of it) that neither a required nor an optional order at the
      entity lists: the record is the whole purchase there.

    Orders at other entities are not this record's business: other records and the rubrics judge them.
    ``siblings`` are every interpretable required and optional order of the subtask.
    """
    same = (aliases or {}).get(order.entity_id, set()) | {order.entity_id}
    cancelled = order.status == "cancelled"
    pool = [r for r in records if r.get("new") and r["record_type"] == order.kind and r.get("entity_id") in same
            and (r.get("status") == "cancelled") == cancelled]
    if not pool:
        return _none_created(order, records, f" at {order.entity_id}")
    peers = [o for o in siblings if o.kind == order.kind and not o.existing and o.entity_id in same
             and (o.status == "cancelled") == cancelled]
    lines = [line for record in pool for line in _lines(record)]

    def fits(product: Any, pid: str, date: str | None) -> bool:
        return product.product_id == pid and (not product.date or product.date == date)

    problems = []
    for product in order.products:
        got = sum(q for pid, q, date in lines if fits(product, pid, date))
        if not got:
            held = [pid + (f" on {date}" if date else "") for pid, _, date in lines]
            on = f" on {product.date}" if product.date else ""
            problems.append(f"product {product.product_id}{on} missing (the orders there hold {held})")
            continue
        shared = [p for o in peers for p in o.products if p.product_id == product.product_id
                  and p.date == product.date]
        if product.quantity is not None and all(p.quantity is not None for p in shared):
            wanted = sum(p.quantity or 0 for p in shared) or product.quantity
            if got != wanted:
                together = " (the required lines there together)" if len(shared) > 1 else ""
                problems.append(f"quantity of {product.product_id} is {got}, expected {wanted}{together}"
                                + (f" over {len(pool)} orders" if len(pool) > 1 else ""))
    listed = [p for o in peers for p in o.products]
    extra = sorted({pid + (f" on {date}" if date else "") for pid, _, date in lines
                    if not any(fits(p, pid, date) for p in listed)})
    if extra:
        problems.append(f"also holds {', '.join(extra)}, which no required order at {order.entity_id} lists")
    orders = f"{order.kind} order(s) {', '.join(str(r.get('record_id')) for r in pool)} at {order.entity_id}"
    return _outcome(order, not problems, f"{orders}: " + "; ".join(problems) if problems else f"{orders} hold it")


def required_order_verdict(order: RequiredOrder, records: list[dict[str, Any]], *,
                           aliases: dict[str, set[str]] | None = None,
                           coordinates: dict[str, tuple[float, float]] | None = None,
                           kinds: tuple[str, ...] | None = None) -> RubricVerdict:
    """Whether the final state holds one required 1.0 record (a new one, or a change to an existing one).

    Args:
        kinds: The record kinds that meet it (default: the order's own; see :func:`visit_kinds`).
    """
    if order.existing:
        record = next((r for r in records if r.get("record_id") == order.record_id), None)
        if record is None:
            return _outcome(order, False, f"order {order.record_id} is gone")
        problems = []
        if (order.status == "cancelled") != (record.get("status") == "cancelled"):
            problems.append(f"status is {record.get('status')}, expected {order.status or 'not cancelled'}")
        if order.note and not _same_text(record.get("note"), order.note):
            problems.append(f"note is {record.get('note')!r}, expected {order.note!r}")
        return _outcome(order, not problems,
                        "; ".join(problems) or f"order {order.record_id} is {record.get('status')}")
    wanted_cancelled = order.status == "cancelled"
    candidates = [r for r in records if r.get("new") and r["record_type"] in (kinds or (order.kind,))
                  and (r.get("status") == "cancelled") == wanted_cancelled]
    if not candidates:
        return _none_created(order, records, "")
    ranked = sorted(((required_order_problems(order, r, aliases=aliases, coordinates=coordinates), r)
                     for r in candidates), key=lambda row: len(row[0]))
    problems, record = ranked[0]
    return _outcome(order, not problems,
                    f"{_describe(record)}: " + "; ".join(problems) if problems else f"{_describe(record)} matches")


def _none_created(order: RequiredOrder, records: list[dict[str, Any]], where: str) -> RubricVerdict:
    state = "cancelled " if order.status == "cancelled" else ""
    others = ", ".join(f"{_describe(r)} ({r.get('status')})" for r in records if r.get("new"))
    return _outcome(order, False, f"no {state}{order.kind} record{where} was created"
                    + (f"; created: {others}" if others else ""))


def _outcome(order: RequiredOrder, met: bool, reason: str) -> RubricVerdict:
    """The outcome verdict of one required order."""
    return RubricVerdict(text=f"[outcome] {order.describe()}", kind="outcome", met=met, reason=reason)


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
    for container in ENTITY_CONTAINERS:
        for entity_id, entity in (environment.get(container) or {}).items():
            if not isinstance(entity, dict):
                continue
            products = [p for p in entity.get("products") or [] if isinstance(p, dict)]
            marked = [p.get("product_id") for p in products if p.get("product_type") == "target"]
            targets.update(str(pid) for pid in marked if pid)
            if not marked and any(str(v) == "target" for k, v in entity.items() if k.endswith("_type")):
                targets.add(str(entity_id))
    return targets
