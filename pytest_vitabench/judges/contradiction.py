"""A judge verdict whose own justification says the opposite (``met: true`` beside "the rubric is not met").

Only explicit verdict wording is read, so a justification that merely contains a negation ("the dessert does
not contain durian") is never taken for a contradiction; subtler cases are left to ``vitabench judge-audit``.
"""

from __future__ import annotations

import re

_NEGATED = re.compile(
    r"^\W*(not\s+met|unmet|not\s+satisfied|unsatisfied|fail(ed)?)\b"
    r"|\b(rubric|requirement|criterion|expectation|condition)\s+(is|was|has)\s+(not|never)\s+(been\s+)?"
    r"(met|satisfied|fulfilled)\b"
    r"|\bdoes\s+not\s+(meet|satisfy)\s+the\s+(rubric|requirement|criterion|expectation)\b"
    r"|\bnot\s+met\W*$"
    r"|未满足|不满足|不符合",
    re.IGNORECASE)
_AFFIRMED = re.compile(
    r"^\W*(met|satisfied|fulfilled|pass(ed)?)\b(?!\s+(only|if|when|unless))"
    r"|\b(rubric|requirement|criterion|expectation|condition)\s+(is|was|has\s+been)\s+(fully\s+)?"
    r"(met|satisfied|fulfilled)\b"
    r"|^\W*(已满足|满足)",
    re.IGNORECASE)

#: A hedged justification ("partly met") is no clear reading either way.
_HEDGED = re.compile(r"\b(partly|partially|part\s+of|mostly)\b|部分", re.IGNORECASE)


def contradiction(met: bool, justification: str) -> str | None:
    """Why ``justification`` contradicts the verdict ``met``, or ``None`` when it does not (or cannot tell)."""
    text = " ".join(justification.split())
    if not text or _HEDGED.search(text):
        return None
    negated, affirmed = _NEGATED.search(text), _AFFIRMED.search(text)
    if negated and affirmed:
        return None  # both readings present: no clear contradiction
    if met and negated:
        return f"the verdict is met but the justification says {negated.group(0).strip()!r}"
    if not met and affirmed:
        return f"the verdict is unmet but the justification says {affirmed.group(0).strip()!r}"
    return None
