"""The kind of a machine-checked rubric (rating floor, address, proactive question ...), read from its check.

The judge audit breaks agreement down by kind, because an LLM judge is not equally good at every kind: a
rubric about a field of the final order (the address, the headcount) shows in a tool call, while a
rubric about the merchant's rating or a phrase the chosen product carries needs the catalogue. The kind is
derived from how the rules judge checks the rubric (the check's kind and the record fields it tests), so it
needs no annotation; the rubric's wording only splits the merchant checks (a rating floor from the rest).
"""

from __future__ import annotations

import re

from ..suite.checks import Check, NoRecordCheck, RecordCheck, TextCheck, ToolCalledCheck

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
