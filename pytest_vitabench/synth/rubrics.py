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
    family = sub.family
    kind = built.record_type
    book = RubricBook(kind)
    add, record = book.add, book.record
    if sub.proactive == "conditional":
        pattern, what = ASK_PATTERNS[next(a for a in family.axes if AXIS[a].kind == "conditional")]
        book.asked(what, pattern)
    elif sub.proactive == "count":
        pattern = r"which (day|date|night)|when|what date|date" if kind == "hotel" else ASK_COUNT_OR_TIME
        book.asked(_ASK_COUNT_TEXT[family.kind], pattern)
    for i, dim in enumerate(built.dims):
        if dim.kind == "date":
            what = {"hotel": "night of", "attraction": "visit date"}.get(kind, "travel date")
            add(f"The booking is for the {what} {dim.good}", record(dates={"includes_all": [dim.good]}))
            continue
        axis = AXIS[dim.key]
        value = str(dim.good if dim.kind != "aversion" else dim.bad[0])
        text = axis.rubric.format(noun=family.noun, place=family.place, value=value)
        pref = dim.pref
        assert pref is not None
        phrases = [value] if dim.kind != "floor" else [f"{float(value):.1f}"]
        book.chosen(text, dim.level, built.satisfying[i],
                    {"preference_id": pref.pid, "tag": pref.tag(pref.value_at(sub.day)), "phrases": phrases})
    if family.kind == "delivery":
        address = str(plan.person.profile["home_address" if sub.address == "home" else "work_address"])
        book.delivered_to(sub.address, address, next(part for part in address.split(", ") if part[:1].isdigit()))
    if kind == "reservation":
        day = built.decision_day
        add(f"The reservation is for {sub.count} people", record(customer_count={"eq": sub.count}))
        add(f"The reservation is for {day} {sub.visit_clock}", record(time={"contains": f"{day} {sub.visit_clock}"}))
    elif sub.count > 1:
        book.total(sub.count)
    book.paid()
    return book.texts, book.checks, book.sources


class RubricBook:
    """A subtask's rubrics as they are added: texts, ``rubric_checks`` and ``rubric_sources`` in step."""

    def __init__(self, record_type: str):
        self.record_type = record_type
        self.texts: list[str] = []
        self.checks: list[dict[str, Any]] = []
        self.sources: list[dict[str, Any]] = []

    def add(self, text: str, check: dict[str, Any], source: dict[str, Any] | None = None) -> None:
        """One rubric with its machine check and, when it rests on a preference, its source."""
        self.texts.append(text)
        self.checks.append({"rubric": text, "check": check})
        if source is not None:
            self.sources.append({"rubric": text, **source})

    def record(self, **where: Any) -> dict[str, Any]:
        """A check that a record of the subtask's type matches ``where`` (``suite/checks.py``)."""
        return {"kind": "record", "record_type": self.record_type, "where": where}

    # The rubrics generated and curated suites share, worded alike.

    def asked(self, what: str, pattern: str) -> None:
        """A proactive subtask's question: the agent asks ``what`` (a question matching ``pattern``)."""
        self.add(f"The agent asks {what}", {"kind": "asked", "pattern": pattern})

    def chosen(self, text: str, level: str, ids: list[str], source: dict[str, Any] | None = None) -> None:
        """The booked merchant (``level`` ``"merchant"``) or every booked product is one of ``ids``."""
        where = {"entity_id": {"in": ids}} if level == "merchant" else {"product_ids": {"subset_of": ids}}
        self.add(text, self.record(**where), source)

    def delivered_to(self, which: str, address: str, key: str) -> None:
        """The order goes to the user's ``"home"`` (else office) ``address``, recognised by ``key``."""
        label = "home" if which == "home" else "office"
        self.add(f"The order is delivered to the user's {label} address ({address})",
                 self.record(address={"contains": key}))

    def total(self, count: int) -> None:
        self.add(f"The order is for {count} in total", self.record(total_quantity={"eq": count}))

    def paid(self) -> None:
        """Every order is paid (a table reservation has nothing to pay)."""
        if self.record_type != "reservation":
            self.add("The order is paid", self.record(status={"eq": "paid"}))
