"""Preference evidence in one line of memory text: clauses, their polarity cues, situations and thresholds.

A clause is negative when a negation cue precedes a phrase or an aversion cue follows it (:func:`reading`).
Search and browse records, assistant turns and records about someone else ("for my husband") are not
evidence. Parsing a line depends on its record alone, never on its date.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .vocabulary import COMPLAINT_TYPES, DIALOGUE_TYPES, REVIEW_TYPES, SKIP_TYPES
from .words import normalize, token_tuple

_NEGATIONS = frozenset("""
no not never without avoid avoids avoiding avoided dislike dislikes disliked hate hates hated allergic allergy
stop stops stopped quit quits quitting skip skipping nor none non neither too against
refuse refuses refused refusing exclude excludes excluded excluding excludes shun shuns shunned off
""".split())
_AFTER_CUES = frozenset("allergy allergic intolerant intolerance free upset upsets bothers anymore".split())
_PAIRED_CUES = {("instead", "of"), ("rather", "than"), ("tired", "of"), ("sick", "of"), ("gave", "up"),
                ("give", "up"), ("cut", "out"), ("stay", "away"), ("switched", "from"), ("switch", "from"),
                ("moved", "from"), ("changed", "from"), ("away", "from"), ("clear", "of"), ("done", "with"),
                ("through", "with"), ("turned", "off"), ("put", "off")}
#: Idioms whose negation word means the opposite ("can't get enough of durian") or that negate from after
#: the phrase ("pork is a no-go"), in any wording of the user's, not only our generator's.
_POSITIVE_IDIOMS = re.compile(r"\b(?:can ?not|could not|never) get enough of\b|\bnever (?:get|gets|got) tired of\b")
_AFTER_IDIOMS = re.compile(
    r"^\W*(?:is|are)?\s*(?:an? )?(?:no[\s-]go|off[\s-]limits?|out of the question|a dealbreaker)")
_BREAKERS = frozenset("but however though although whereas instead while".split())
_PROXY = re.compile(
    r"\b(for|to)\s+(my|our|a|the|his|her)\s+(\w+\s+)?(colleague|coworker|co-worker|friend|mom|mother|mum|dad|father|"
    r"wife|husband|son|daughter|kid|child|children|boss|client|sister|brother|parent|neighbou?r|guest|"
    r"roommate|team|grandma|grandpa|grandmother|grandfather|daughters|sons|friends|parents|kids|guests)s?\b|"
    r"\bgift\b|\bon behalf of\b", re.I)


@dataclass(frozen=True, slots=True)
class Clause:
    """One piece of evidence: tokens, the polarity it has without a cue, and the situations it is limited to
    (``{"time": {"afternoon"}}`` for "decaf before afternoon meetings"). Immutable: memories share it."""

    tokens: tuple[str, ...]
    default: int
    text: str
    conditions: Mapping[str, frozenset[str]]


@dataclass(frozen=True, slots=True)
class StatedThreshold:
    """A threshold a line states: ``kind`` is ``"max_price"`` or ``"min_score"``; ``scope`` its clause's words."""

    kind: str
    value: float
    scope: frozenset[str]


@dataclass(frozen=True)
class ParsedLine:
    """What one memory line states, in reading order."""

    clauses: tuple[Clause, ...]
    thresholds: tuple[StatedThreshold, ...]


#: Situations a preference can be limited to, by group (stemmed words). A clause is conditional when a
#: situation word follows a cue ("before", "when", "with", "on", ...) closely.
CONDITION_GROUPS: dict[str, frozenset[str]] = {
    "time": frozenset({"morning", "afternoon", "evening"}),
    "company": frozenset({"client", "friend", "family", "colleague", "kid", "partner"}),
    "purpose": frozenset({"conference", "holiday", "vacation"}),
}
_CONDITION_TERMS = {term: group for group, terms in CONDITION_GROUPS.items() for term in terms}
_CONDITION_CUES = frozenset("before after when if on during with for in at".split())


def situation_of(texts: list[str]) -> frozenset[tuple[str, str]]:
    """The situation words stated in a conversation's user turns (request and answers)."""
    found: set[tuple[str, str]] = set()
    for text in texts:
        for token in token_tuple(str(text)):
            group = _CONDITION_TERMS.get(token)
            if group:
                found.add((group, token))
    return frozenset(found)


_HEADING = re.compile(r"[\[【].*[\]】]")
_TYPED_RECORD = re.compile(r"^-\s*\[([^\]]*)\]\s*\[([^\]]*)\]\s*(.*)$")
_CLAUSE_BREAK = re.compile(r"(?<!\d)\.|\.(?!\d)|[;!?\n,]|\bbut\b|\bhowever\b|\bthough\b|\balthough\b")
_DIGIT = re.compile(r"\d")
_PRICE_CAP = re.compile(
    r"(?:under|below|less than|no more than|not more than|at most|max(?:imum)?|within|up to|cheaper than|"
    r"budget(?: of| is)?)\s*(?:¥|rmb|cny)?\s*(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|¥|元|kuai)")
_PRICE_CAP_AFTER = re.compile(r"(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|元)\s*(?:or less|or below|max|at most|以内|以下)")
_PRICE_LIMIT = re.compile(r"(?:(?:price )?cap|limit)(?: of| is|:)?\s*(?:¥|rmb|cny)?\s*(\d+(?:\.\d+)?)")
_PRICE_NOT_OVER = re.compile(r"\b(?:not|never)\b[^.;]*?\b(?:over|more than|above)\s*(?:¥|rmb|cny)?\s*"
                             r"(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|元|kuai)")
_ABOUT_RATING = re.compile(r"rat|star|scor|review|评分|分|merchant|shop|store|\b[0-4]\.\d\b")
_FLOOR = re.compile(r"(?:at least|above|over|minimum(?: of)?|no lower than|not lower than|no less than|"
                    r"not less than|not below|>=?|≥)\s*(\d(?:\.\d+)?)")
_FLOOR_AFTER = re.compile(r"(\d\.\d+|\d)\s*(?:stars?\s*|分\s*)?(?:\+|or (?:above|higher|more|better)|"
                          r"and (?:above|up|higher|over)|及以上|以上)")
#: "no merchant below 4.3", "refuses shops rated under 4.3"
_FLOOR_REFUSED = re.compile(r"\b(?:no|not|never|refuse[sd]?|avoid[s]?|nothing)\b[^.;]*?\b(?:below|under|lower than|"
                            r"less than)\s*(\d(?:\.\d+)?)")


def conditions_of(tokens: tuple[str, ...] | list[str]) -> dict[str, frozenset[str]]:
    """The situations a clause is limited to: situation words shortly after a cue ("before afternoon ...")."""
    if _CONDITION_TERMS.keys().isdisjoint(tokens):  # most clauses name no situation
        return {}
    found: dict[str, set[str]] = {}
    for i, token in enumerate(tokens):
        group = _CONDITION_TERMS.get(token)
        if group and any(t in _CONDITION_CUES for t in tokens[max(0, i - 3):i]):
            found.setdefault(group, set()).add(token)
    return {group: frozenset(terms) for group, terms in found.items()}


def applies(clause: Clause, situation: frozenset[tuple[str, str]]) -> bool:
    """A conditional clause is set aside when the situation names another term of the same group."""
    if not clause.conditions or not situation:
        return True
    for group, terms in clause.conditions.items():
        stated = {term for g, term in situation if g == group}
        if stated and not stated & terms:
            return False
    return True


# ------------------------------------------------------------------------------------------ parsing


_NOTHING = ParsedLine((), ())


def parse_line(line: str) -> ParsedLine:
    """Clauses and thresholds of one memory line (its date, if any, never changes what it states).

    Headings and search or browse records state nothing.
    """
    line = line.strip()
    if not line:
        return _NOTHING
    first = line[0]
    if first == "#" or (first in "[【" and _HEADING.fullmatch(line)):
        return _NOTHING
    typed = _TYPED_RECORD.match(line) if first == "-" else None
    if typed is None:
        return parse_statement(line.lstrip("-* ").strip())
    _, kind, body = typed.groups()
    out = _LineParser()
    out.record(kind.strip().lower(), body)
    return out.result()


def parse_statement(text: str) -> ParsedLine:
    """Clauses and thresholds of a free statement (a profile field, say), liked unless a cue says otherwise."""
    out = _LineParser()
    out.text(text, default=1)
    return out.result()


class _LineParser:
    """Reads one memory record or free text into clauses."""

    def __init__(self) -> None:
        self.clauses: list[Clause] = []
        self.thresholds: list[StatedThreshold] = []

    def result(self) -> ParsedLine:
        return ParsedLine(tuple(self.clauses), tuple(self.thresholds))

    def record(self, kind: str, body: str) -> None:
        """A typed history record: ``kind`` lower-cased, ``body`` its content (JSON or dialogue turns)."""
        if kind in SKIP_TYPES:
            return
        if kind in DIALOGUE_TYPES:
            for utterance in _user_utterances(body):
                if not _PROXY.search(utterance):
                    self.text(utterance, default=1)
            return
        content = _loads(body)
        if kind in REVIEW_TYPES and isinstance(content, dict):
            rating = as_number(content.get("rating"))
            review = str(content.get("text") or content.get("content") or "")
            default = 0 if rating is None else (1 if rating >= 4 else -1 if rating <= 2 else 0)
            self.text(review, default=default if default else 1, neutral=default == 0 and rating is not None)
            return
        flat = _flatten(content) if content is not None else body
        if _PROXY.search(flat):
            return
        # A structured record splits at its commas too, so a negation in one tag ("non-smoking") never
        # reaches the next field.
        self.text(flat, default=-1 if kind in COMPLAINT_TYPES else 1)

    def text(self, text: str, default: int, neutral: bool = False) -> None:
        # A full stop inside a number ("4.5") is not a sentence end.
        for piece in _CLAUSE_BREAK.split(text):
            if piece and piece.strip():
                self.push(piece, 0 if neutral else default)

    def push(self, text: str, default: int) -> None:
        tokens = token_tuple(text)
        if not tokens:
            return
        self.clauses.append(Clause(tokens=tokens, default=default, text=text.strip(),
                                   conditions=conditions_of(tokens)))
        self.thresholds += _thresholds(text, tokens)


def _thresholds(text: str, tokens: tuple[str, ...]) -> list[StatedThreshold]:
    low = normalize(text)
    if not _DIGIT.search(low):  # every threshold states a number
        return []
    scope = frozenset(tokens)
    out: list[StatedThreshold] = []
    price = _PRICE_CAP.search(low) or _PRICE_CAP_AFTER.search(low)
    if price is None:  # "a price cap of ¥40", "will not pay over 40 yuan"
        price = _PRICE_LIMIT.search(low) or _PRICE_NOT_OVER.search(low)
    if price:
        out.append(StatedThreshold("max_price", float(price.group(1)), scope))
    if _ABOUT_RATING.search(low):
        floor = _FLOOR.search(low) or _FLOOR_AFTER.search(low) or _FLOOR_REFUSED.search(low)
        if floor and 0 < float(floor.group(1)) <= 5:
            out.append(StatedThreshold("min_score", float(floor.group(1)), scope))
    return out


def reading(clause: Clause, start: int, length: int) -> int:
    """+1 / -1 / 0: the polarity of the phrase at ``start`` in this clause."""
    tokens = clause.tokens
    window: list[str] = []
    for j in range(start - 1, max(-1, start - 6), -1):
        word = tokens[j]
        if word in _BREAKERS:
            break
        if word == "to" and "from" in tokens[max(0, j - 4):j]:
            break  # "switched from X to <phrase>": the cue belongs to X
        window.append(word)
    window.reverse()
    if _POSITIVE_IDIOMS.search(" ".join(window)):
        return 1
    negated = any(w in _NEGATIONS for w in window)
    negated = negated or any((a, b) in _PAIRED_CUES for a, b in zip(window, window[1:], strict=False))
    after = tokens[start + length:start + length + 3]
    negated = negated or any(w in _AFTER_CUES for w in after)
    negated = negated or bool(_AFTER_IDIOMS.search(" ".join(tokens[start + length:start + length + 5])))
    if negated:
        return -1
    return clause.default


def _user_utterances(body: str) -> list[str]:
    parsed = _loads(body)
    if isinstance(parsed, list):
        return [str(t.get("content", "")) for t in parsed if isinstance(t, dict) and t.get("role") == "user"]
    out = []
    for part in body.split(" | "):
        role, _, text = part.partition(":")
        if role.strip().lower() in ("user", "用户"):
            out.append(text.strip())
    return out


def _loads(text: str) -> Any:
    text = text.strip()
    if not text or text[0] not in "[{":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _flatten(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join([f"{k}: {_flatten(v) if isinstance(v, (dict, list)) else v}" for k, v in value.items()])
    if isinstance(value, list):
        return ", ".join([_flatten(v) if isinstance(v, (dict, list)) else str(v) for v in value])
    return str(value)


def as_number(value: Any) -> float | None:
    """``value`` as a float, or None when it is not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


_CONSTRAINT_KEY = re.compile(r"allerg|diet|restriction|disease|illness|过敏|饮食|忌口|疾病", re.I)


def profile_statements(profile: dict[str, Any]) -> list[str]:
    """Profile fields that state constraints (allergies, diet), as evidence sentences."""
    out = []
    for key, value in profile.items():
        if _CONSTRAINT_KEY.search(str(key)):
            text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            if text.strip().lower() not in ("", "none", "no", "n/a", "无"):
                out.append(f"{key}: {text}")
    return out
