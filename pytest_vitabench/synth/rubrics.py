"""Atomic English rubrics for a subtask, each with a machine check (``suite/checks.py``) and, when it rests
on a remembered preference, the preference it relies on (``rubric_sources``, used by the validator).
"""

from __future__ import annotations

from typing import Any

from .catalog import AXIS
from .environment import Built
from .plan import SubPlan, UserPlan

#: The questions that count as asking for the missing facts (the scripted user answers related ones).
ASK_COUNT_OR_TIME = r"how many|people|guests|party|travell?ers|cups|portions|when|what time|which (day|date)|date"
ASK_PATTERNS = {
    "caffeine": (r"when|what time|meeting|morning|afternoon", "when the meeting is before choosing the coffee"),
    "dining": (r"how many|who|with whom|people|guests|occasion|clients|friends",
               "who is coming before choosing the restaurant"),
    "stay": (r"which (day|date|night)|when|purpose|conference|holiday|trip|guests",
             "about the trip before choosing the hotel"),
}
_ASK_COUNT_TEXT = {
    "delivery": "how many are needed before ordering",
    "instore_product": "how many vouchers are needed before buying",
    "reservation": "how many people are coming and when before booking",
    "hotel": "which night the stay is for before booking",
    "train": "the travel date and the number of travellers before booking",
    "flight": "the travel date and the number of travellers before booking",
    "attraction": "the visit date and the number of visitors before booking",
}


def rubrics_for(plan: UserPlan, sub: SubPlan, built: Built) -> tuple[list[str], list[dict[str, Any]],
                                                                      list[dict[str, Any]]]:
    """Rubric texts, their ``rubric_checks`` and their ``rubric_sources``."""
    texts: list[str] = []
    checks: list[dict[str, Any]] = []
    sources: list[dict[str, Any]] = []
    family = sub.family
    kind = built.record_type

    def add(text: str, check: dict[str, Any], source: dict[str, Any] | None = None) -> None:
        texts.append(text)
        checks.append({"rubric": text, "check": check})
        if source is not None:
            sources.append({"rubric": text, **source})

    def record(**where: Any) -> dict[str, Any]:
        return {"kind": "record", "record_type": kind, "where": where}

    if sub.proactive == "conditional":
        axis = next(a for a in family.axes if AXIS[a].kind == "conditional")
        pattern, what = ASK_PATTERNS[axis]
        add(f"The agent asks {what}", {"kind": "asked", "pattern": pattern})
    elif sub.proactive == "count":
        pattern = r"which (day|date|night)|when|what date|date" if kind == "hotel" else ASK_COUNT_OR_TIME
        add(f"The agent asks {_ASK_COUNT_TEXT[family.kind]}", {"kind": "asked", "pattern": pattern})
    for i, dim in enumerate(built.dims):
        if dim.kind == "date":
            what = {"hotel": "night of", "attraction": "visit date"}.get(kind, "travel date")
            text = f"The booking is for the {what} {dim.good}" if kind != "hotel" else \
                f"The booking is for the night of {dim.good}"
            add(text, record(dates={"includes_all": [dim.good]}))
            continue
        value = (dim.good or "") if dim.kind != "aversion" else dim.bad[0]  # only aversions lack a good value
        text = AXIS[dim.key].rubric.format(noun=family.noun, place=family.place, value=value)
        if dim.level == "merchant":
            check = record(entity_id={"in": built.satisfying[i]})
        else:
            check = record(product_ids={"subset_of": built.satisfying[i]})
        pref = dim.pref
        assert pref is not None
        phrases = [value] if dim.kind != "floor" else [f"{float(value):.1f}"]
        add(text, check, {"preference_id": pref.pid, "tag": pref.tag(pref.value_at(sub.day)), "phrases": phrases})
    person = plan.person
    if family.kind == "delivery":
        home = sub.address == "home"
        address = person.home_address if home else person.work_address
        key = next(part for part in address.split(", ") if part[:1].isdigit())
        add(f"The order is delivered to the user's {'home' if home else 'office'} address ({address})",
            record(address={"contains": key}))
    if kind == "reservation":
        day = built.decision_day
        add(f"The reservation is for {sub.count} people", record(customer_count={"eq": sub.count}))
        add(f"The reservation is for {day} {sub.visit_clock}", record(time={"contains": f"{day} {sub.visit_clock}"}))
    elif sub.count > 1:
        add(f"The order is for {sub.count} in total", record(total_quantity={"eq": sub.count}))
    if kind != "reservation":
        add("The order is paid", record(status={"eq": "paid"}))
    return texts, checks, sources
