"""What a request or an answer states explicitly: how many, which date, what time, a price cap.

Read by the built-in agents (the request and the user's answers) and by the scripted user (the instruction and
the agent's recommendation), so both sides of a conversation read a fact the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from .words import normalize, tokenize

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "a couple": 2,
                 "couple": 2, "both": 2, "pair": 2}
_COUNT_NOUNS = frozenset("""
people person persons guest guests adults adult travellers traveller travelers traveler passengers
passenger cups cup portions portion servings serving bottles bottle boxes box tickets ticket rooms room pieces
piece orders seats seat sets set x pax diners diner members member kids children
""".split())
#: Measures that follow a number without counting items ("30 minutes", "2 km").
_UNITS = frozenset("minute min hour hr second sec day week month year km kilometer kilometre meter metre m "
                   "yuan rmb kuai percent star point floor degree kg g calorie".split())
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")

_CLOCK_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?")
_PRICE_CAP = re.compile(r"(?:under|below|less than|no more than|at most|within|up to|budget(?: of| is)?)\s*"
                        r"(?:¥|rmb|cny)?\s*(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|¥|元|kuai)")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MONTH_NAMES = "|".join(m[:3] + r"[a-z]*" for m in _MONTHS)
_MONTH_DAY = re.compile(rf"\b({_MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_NAMES})\b")
_WEEKDAY = re.compile(r"\b(this|next|coming)?\s*(" + "|".join(_WEEKDAYS) + r")\b")
_WEEKEND = re.compile(r"\bweekend\b")
_TOMORROW = re.compile(r"\btomorrow\b")
_TODAY = re.compile(r"\b(today|tonight|this (morning|afternoon|evening))\b")
_AM_PM = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])")
_CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_NOON = re.compile(r"\bnoon\b")
_COUNT = re.compile(r"\b(\d{1,3}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b")
_DECIMAL_BEFORE = re.compile(r"\d\.$")
_DECIMAL_AFTER = re.compile(r"\.\d")
_PARTY_OF = re.compile(r"(party of|table for|for)\s*$")


@dataclass
class Facts:
    """What a request or an answer states explicitly."""

    count: int | None = None
    date: str | None = None  # YYYY-MM-DD
    time: str | None = None  # HH:MM
    max_price: float | None = None

    def merged(self, newer: Facts) -> Facts:
        return Facts(count=newer.count or self.count, date=newer.date or self.date, time=newer.time or self.time,
                     max_price=newer.max_price or self.max_price)


def parse_now(time_text: str) -> datetime:
    """The setup clock (``YYYY-MM-DD HH:MM:SS Weekday``) as a datetime; midnight today if unparsable."""
    match = _CLOCK_TEXT.search(time_text or "")
    if match:
        text = match.group(0).replace("T", " ")
        for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
            try:
                return datetime.strptime(text, fmt)
            except ValueError:
                continue
    return datetime(2025, 1, 1)


def extract_facts(text: str, now: datetime, item_words: set[str] | None = None) -> Facts:
    """Count, date, time and price cap stated in ``text`` (dates resolved against ``now``)."""
    low = normalize(text)
    facts = Facts()
    spans: list[tuple[int, int]] = []

    def taken(match: re.Match[str]) -> None:
        spans.append(match.span())

    facts.date = _extract_date(low, now.date(), taken)
    facts.time = _extract_time(low, taken)
    price = _PRICE_CAP.search(low)
    if price:
        facts.max_price = float(price.group(1))
        taken(price)
    facts.count = _extract_count(low, spans, item_words or set())
    return facts


def _extract_date(low: str, today: date, taken: Any) -> str | None:
    iso = _ISO_DATE.search(low)
    if iso:
        taken(iso)
        try:
            return date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3))).isoformat()
        except ValueError:
            pass
    md = _MONTH_DAY.search(low) or _DAY_MONTH.search(low)
    if md:
        taken(md)
        month_text, day_text = (md.group(1), md.group(2)) if md.group(1)[0].isalpha() else (md.group(2), md.group(1))
        month = next(i for i, m in enumerate(_MONTHS, 1) if month_text.startswith(m[:3]))
        try:
            found = date(today.year, month, int(day_text))
            if found < today:
                found = date(today.year + 1, month, int(day_text))
            return found.isoformat()
        except ValueError:
            pass
    wd = _WEEKDAY.search(low)
    if wd:
        taken(wd)
        ahead = (_WEEKDAYS.index(wd.group(2)) - today.weekday()) % 7
        if ahead == 0 and wd.group(1) == "next":
            ahead = 7
        return (today + timedelta(days=ahead)).isoformat()
    if _WEEKEND.search(low):
        ahead = (5 - today.weekday()) % 7 if today.weekday() != 6 else 0
        return (today + timedelta(days=ahead)).isoformat()
    if "day after tomorrow" in low:
        return (today + timedelta(days=2)).isoformat()
    if _TOMORROW.search(low):
        return (today + timedelta(days=1)).isoformat()
    if _TODAY.search(low):
        return today.isoformat()
    return None


def _extract_time(low: str, taken: Any) -> str | None:
    ampm = _AM_PM.search(low)
    if ampm:
        taken(ampm)
        hour = int(ampm.group(1)) % 12 + (12 if ampm.group(3).startswith("p") else 0)
        return f"{hour:02d}:{int(ampm.group(2) or 0):02d}"
    clock = _CLOCK.search(low)
    if clock:
        taken(clock)
        return f"{int(clock.group(1)):02d}:{clock.group(2)}"
    if _NOON.search(low):
        return "12:00"
    return None


def _extract_count(low: str, spans: list[tuple[int, int]], item_words: set[str]) -> int | None:
    for match in _COUNT.finditer(low):
        if any(a <= match.start() < b for a, b in spans):
            continue
        word = match.group(1)
        if _DECIMAL_BEFORE.search(low[:match.start()]) or _DECIMAL_AFTER.match(low[match.end():]):
            continue  # a part of a decimal ("rated 4.6"), not a count
        value = int(word) if word.isdigit() else _NUMBER_WORDS[word]
        if value <= 0 or value > 200:
            continue
        after = tokenize(low[match.end():match.end() + 30])[:3]
        before = low[max(0, match.start() - 12):match.start()]
        if after and after[0] in _UNITS:
            continue
        if (any(w in _COUNT_NOUNS or w in item_words for w in after[:2]) or after[:2] == ["of", "us"]
                or _PARTY_OF.search(before)):
            return value
    return None

