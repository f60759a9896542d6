"""Lexical heuristics shared by the offline built-in agents (no model, no network).

Three pieces, each usable alone:

* :class:`PreferenceMemory` reads memory text (ground-truth tag lines, ``full_context`` history lines, or
  free text) into evidence clauses and answers "what does the user currently think of <phrase>?": the
  latest clause that mentions the phrase decides, so a preference that drifted is read at its newest
  value. A clause is negative when a negation cue ("no", "avoid", "can't stand", "quit", "switched
  from", "allergic", ...) precedes the phrase, or an aversion cue follows it. A clause limited to a
  situation ("decaf before afternoon meetings") counts only when the conversation names no other
  situation of the same kind (a morning meeting). Search and browse records,
  assistant turns and records about someone else ("for my husband") are not evidence. It also reads
  thresholds: price caps ("under 40 yuan") and rating floors ("rated at least 4.5").
* :func:`extract_facts` reads a request or an answer: how many, which date, what time, a price cap.
* :class:`Catalogue` collects the entities (stores, shops, hotels, trains, ...) and products that tool
  results mention, and :func:`score_candidate` ranks them against a memory.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

# ------------------------------------------------------------------------------------------ words

STOPWORDS = frozenset("""
a an the me my mine i i'm im we us our you your it its this that these those some any something anything
somewhere someone please pls kindly thanks thank hi hello hey just also too very really quite so
for to at in on of and or with from by about into onto up down out over under as is are am be been was were
do does did can could would should will shall may might must need needs want wants wanted like would'd
get got order book buy find reserve reservation make help arrange grab give bring send deliver delivery
one some few couple bit little lot lots good nice great best better quick quickly now soon asap
today tonight tomorrow morning afternoon evening night noon weekend weekday day days week time
monday tuesday wednesday thursday friday saturday sunday
january february march april may june july august september october november december
office home work school lab campus company department workplace place house
trip family friends friend team client clients colleague colleagues parents wife husband kids son daughter
there here what which who when where how why if then than not no yes ok okay sure
usual usually again another other same new
""".split())

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
_SKIP_TYPES = frozenset({"search", "browse", "high_freq_browse", "搜索", "浏览", "高频浏览", "view", "click"})
_DIALOGUE_TYPES = frozenset({"dialogue", "conversation", "对话", "chat"})
_REVIEW_TYPES = frozenset({"review", "rate", "comment", "评价", "评分", "评论"})
_NEGATIVE_TYPES = frozenset({"complaint", "投诉"})
#: Words that make a threshold clause apply to any merchant.
_GENERIC_SCOPE = frozenset("merchant merchants store stores shop shops place places restaurant restaurants "
                           "everything anything always all".split())

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


def normalize(text: str) -> str:
    """Lower-case and expand contractions, so ``can't`` reads as ``can not``."""
    text = str(text).lower().replace("’", "'")
    text = re.sub(r"\bcan't\b", "can not", text)
    text = re.sub(r"\bwon't\b", "will not", text)
    return re.sub(r"n't\b", " not", text)


def stem(word: str) -> str:
    """A tiny plural stemmer: ``rooms`` -> ``room``, ``dishes`` -> ``dish``, ``berries`` -> ``berry``."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


def tokenize(text: str) -> list[str]:
    """Normalised, stemmed word tokens (letters and digits; ``non-smoking`` -> ``non``, ``smoking``)."""
    return list(_tokens(str(text)))


@lru_cache(maxsize=131_072)
def _tokens(text: str) -> tuple[str, ...]:
    # Memoised: candidates, tags and requests are tokenised again on every turn of every trial.
    return tuple(stem(w) for w in _WORD.findall(normalize(text)))


def content_words(text: str) -> list[str]:
    """The request's content words (stemmed, deduplicated, in order): what a search should look for."""
    out: list[str] = []
    for raw in re.findall(r"[a-z0-9][a-z0-9'\-]*", normalize(text)):
        for part in raw.split("-"):
            part = part.strip("'")
            if part.endswith("'s"):
                part = part[:-2]
            word = stem(part)
            if len(word) < 2 or part in STOPWORDS or word in STOPWORDS or word.isdigit():
                continue
            if word not in out:
                out.append(word)
    return out


def _find(tokens: list[str], phrase: list[str]) -> list[int]:
    n = len(phrase)
    return [i for i in range(len(tokens) - n + 1) if tokens[i:i + n] == phrase] if n else []


# ------------------------------------------------------------------------------------------ memory


@dataclass
class Clause:
    """One piece of evidence: tokens, the polarity it has without a cue, its position in time, and the
    situations it is limited to (``{"time": {"afternoon"}}`` for "decaf before afternoon meetings")."""

    tokens: list[str]
    default: int
    order: int
    text: str
    conditions: dict[str, frozenset[str]] = field(default_factory=dict)


@dataclass
class Threshold:
    kind: str  # "max_price" or "min_score"
    value: float
    scope: set[str]
    order: int


#: Situations a preference can be limited to, by group (stemmed words). A clause is conditional when a
#: situation word follows a cue ("before", "when", "with", "on", ...) closely.
CONDITION_GROUPS: dict[str, frozenset[str]] = {
    "time": frozenset({"morning", "afternoon", "evening"}),
    "company": frozenset({"client", "friend", "family", "colleague", "kid", "partner"}),
    "purpose": frozenset({"conference", "holiday", "vacation"}),
}
_CONDITION_TERMS = {term: group for group, terms in CONDITION_GROUPS.items() for term in terms}
_CONDITION_CUES = frozenset("before after when if on during with for in at".split())

Situation = frozenset  # of (group, term) pairs


def situation_of(texts: list[str]) -> frozenset[tuple[str, str]]:
    """The situation words stated in a conversation's user turns (request and answers)."""
    found = set()
    for text in texts:
        for token in tokenize(text):
            group = _CONDITION_TERMS.get(token)
            if group:
                found.add((group, token))
    return frozenset(found)


def _conditions(tokens: list[str]) -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for i, token in enumerate(tokens):
        group = _CONDITION_TERMS.get(token)
        if group and any(t in _CONDITION_CUES for t in tokens[max(0, i - 3):i]):
            found.setdefault(group, set()).add(token)
    return {group: frozenset(terms) for group, terms in found.items()}


def _applies(clause: Clause, situation: frozenset[tuple[str, str]]) -> bool:
    """A conditional clause is set aside when the situation names another term of the same group."""
    if not clause.conditions or not situation:
        return True
    for group, terms in clause.conditions.items():
        stated = {term for g, term in situation if g == group}
        if stated and not stated & terms:
            return False
    return True


# One parsed line: (tokens, default polarity, text) per clause, and the thresholds it states.
_ParsedLine = tuple[tuple[tuple[tuple[str, ...], int, str], ...], tuple[tuple[str, float, frozenset[str]], ...]]


class PreferenceMemory:
    """Evidence about the user's preferences, read from memory text.

    Args:
        text: The memory text: ground-truth tag lines, ``full_context`` history lines, or free text.
        extra: Further statements to read first (older than the memory), e.g. the profile's allergies.

    Parsing is memoised per line (histories grow by appending, so each subtask re-reads only its new
    lines) and queries are answered from a token index with a per-memory cache: the built-in agents ask
    the same questions on every turn of every trial.
    """

    def __init__(self, text: str = "", extra: list[str] | None = None):
        self.clauses: list[Clause] = []
        self.thresholds: list[Threshold] = []
        self._index: dict[str, list[int]] = {}
        self._cache: dict[tuple[tuple[str, ...], frozenset[tuple[str, str]]], tuple[int, str] | None] = {}
        for line in extra or []:
            self._extend(_parse_free(line))
        for line in (text or "").splitlines():
            self._extend(_parse_line(line))

    @classmethod
    def cached(cls, text: str, extra: tuple[str, ...] = ()) -> PreferenceMemory:
        """A shared, read-only memory for this text (the agents re-read the same memory on every turn)."""
        return _cached_memory(text, extra)

    def __bool__(self) -> bool:
        return bool(self.clauses)

    # -- parsing
    def _extend(self, parsed: _ParsedLine) -> None:
        clauses, thresholds = parsed
        for tokens, default, text in clauses:
            order = len(self.clauses)
            token_list = list(tokens)
            self.clauses.append(Clause(tokens=token_list, default=default, order=order, text=text,
                                       conditions=_conditions(token_list)))
            for token in set(tokens):
                self._index.setdefault(token, []).append(order)
        base = len(self.clauses) - 1
        for kind, value, scope in thresholds:
            self.thresholds.append(Threshold(kind, value, set(scope), base))

    # -- queries
    def polarity(self, phrase: str | list[str],
                 situation: frozenset[tuple[str, str]] = frozenset()) -> tuple[int, str] | None:
        """The current polarity of a phrase (+1 liked, -1 disliked) and the clause that decided it.

        The latest clause that mentions the phrase with a non-neutral reading decides (preferences drift).
        Clauses limited to another situation than ``situation`` are set aside. Multi-word phrases with no
        evidence fall back to their longest sub-phrases of two or more words.
        """
        words = tuple(tokenize(phrase) if isinstance(phrase, str) else phrase)
        if not words:
            return None
        key = (words, situation)
        if key in self._cache:
            return self._cache[key]
        spans = [list(words)]
        for size in range(len(words) - 1, 1, -1):
            spans += [list(words[i:i + size]) for i in range(len(words) - size + 1)]
        found = None
        for span in spans:
            found = self._latest(span, situation)
            if found is not None:
                break
        self._cache[key] = found
        return found

    def _latest(self, span: list[str], situation: frozenset[tuple[str, str]]) -> tuple[int, str] | None:
        for order in reversed(self._index.get(span[0], ())):
            clause = self.clauses[order]
            if not _applies(clause, situation):
                continue
            for start in _find(clause.tokens, span):
                value = _reading(clause, start, len(span))
                if value:
                    return value, clause.text
        return None

    def threshold(self, kind: str, context: set[str]) -> float | None:
        """The latest threshold of ``kind`` whose clause is about this context (or about any merchant)."""
        for item in reversed(self.thresholds):
            if item.kind == kind and (item.scope & context or item.scope & _GENERIC_SCOPE or _unscoped(item.scope)):
                return item.value
        return None


#: Words of a threshold clause that name no subject ("rating no less than 4.3", "评分4.3以上").
_THRESHOLD_WORDS = frozenset("rating rate rated score scoring star review must should be only no not less than more "
                             "least at above over below under higher lower minimum maximum yuan rmb price cost".split())


def _unscoped(scope: set[str]) -> bool:
    """A threshold clause without any subject word applies to every merchant."""
    return not {w for w in scope if w not in _THRESHOLD_WORDS and w not in STOPWORDS
                and not re.fullmatch(r"[\d.]+", w)}


@lru_cache(maxsize=8)
def _cached_memory(text: str, extra: tuple[str, ...]) -> PreferenceMemory:
    return PreferenceMemory(text, extra=list(extra))


@lru_cache(maxsize=65_536)
def _parse_line(line: str) -> _ParsedLine:
    """Clauses and thresholds of one memory line (memoised: the same history lines recur)."""
    out = _LineParser()
    out.line(line)
    return out.result()


def _parse_free(text: str) -> _ParsedLine:
    out = _LineParser()
    out.text(text, default=1)
    return out.result()


class _LineParser:
    """Reads one memory line into clauses (tag lines, typed history lines, or free text)."""

    def __init__(self) -> None:
        self.clauses: list[tuple[tuple[str, ...], int, str]] = []
        self.thresholds: list[tuple[str, float, frozenset[str]]] = []

    def result(self) -> _ParsedLine:
        return tuple(self.clauses), tuple(self.thresholds)

    def line(self, line: str) -> None:
        line = line.strip()
        if not line or line.startswith("#") or re.fullmatch(r"[\[【].*[\]】]", line):
            return
        typed = re.match(r"^-\s*\[([^\]]*)\]\s*\[([^\]]*)\]\s*(.*)$", line)
        if not typed:
            self.text(line.lstrip("-* ").strip(), default=1)
            return
        kind, body = typed.group(2).strip().lower(), typed.group(3)
        if kind in _SKIP_TYPES:
            return
        if kind in _DIALOGUE_TYPES:
            for utterance in _user_utterances(body):
                if not _PROXY.search(utterance):
                    self.text(utterance, default=1)
            return
        content = _loads(body)
        if kind in _REVIEW_TYPES and isinstance(content, dict):
            rating = _number(content.get("rating"))
            review = str(content.get("text") or content.get("content") or "")
            default = 0 if rating is None else (1 if rating >= 4 else -1 if rating <= 2 else 0)
            self.text(review, default=default if default else 1, neutral=default == 0 and rating is not None)
            return
        flat = _flatten(content) if content is not None else body
        if _PROXY.search(flat):
            return
        # A structured record splits at its commas too, so a negation in one tag ("non-smoking") never
        # reaches the next field.
        self.text(flat, default=-1 if kind in _NEGATIVE_TYPES else 1)

    def text(self, text: str, default: int, neutral: bool = False) -> None:
        # A full stop inside a number ("4.5") is not a sentence end.
        for piece in re.split(r"(?<!\d)\.|\.(?!\d)|[;!?\n,]|\bbut\b|\bhowever\b|\bthough\b|\balthough\b", text):
            if piece and piece.strip():
                self.push(piece, 0 if neutral else default)

    def push(self, text: str, default: int) -> None:
        tokens = tokenize(text)
        if not tokens:
            return
        self.clauses.append((tuple(tokens), default, text.strip()))
        self.thresholds += _thresholds(text, tokens)


def _thresholds(text: str, tokens: list[str]) -> list[tuple[str, float, frozenset[str]]]:
    low = normalize(text)
    scope = frozenset(tokens)
    out = []
    price = re.search(
        r"(?:under|below|less than|no more than|not more than|at most|max(?:imum)?|within|up to|cheaper than|"
        r"budget(?: of| is)?)\s*(?:¥|rmb|cny)?\s*(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|¥|元|kuai)", low)
    if price is None:
        price = re.search(r"(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|元)\s*(?:or less|or below|max|at most|以内|以下)",
                          low)
    if price is None:  # "a price cap of ¥40", "will not pay over 40 yuan"
        price = re.search(r"(?:(?:price )?cap|limit)(?: of| is|:)?\s*(?:¥|rmb|cny)?\s*(\d+(?:\.\d+)?)", low)
        price = price or re.search(r"\b(?:not|never)\b[^.;]*?\b(?:over|more than|above)\s*(?:¥|rmb|cny)?\s*"
                                   r"(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|元|kuai)", low)
    if price:
        out.append(("max_price", float(price.group(1)), scope))
    if re.search(r"rat|star|scor|review|评分|分|merchant|shop|store|\b[0-4]\.\d\b", low):
        floor = re.search(r"(?:at least|above|over|minimum(?: of)?|no lower than|not lower than|no less than|"
                          r"not less than|not below|>=?|≥)\s*(\d(?:\.\d+)?)", low)
        if floor is None:
            floor = re.search(r"(\d\.\d+|\d)\s*(?:stars?\s*|分\s*)?(?:\+|or (?:above|higher|more|better)|"
                              r"and (?:above|up|higher|over)|及以上|以上)", low)
        if floor is None:  # "no merchant below 4.3", "refuses shops rated under 4.3"
            floor = re.search(r"\b(?:no|not|never|refuse[sd]?|avoid[s]?|nothing)\b[^.;]*?\b(?:below|under|lower than|"
                              r"less than)\s*(\d(?:\.\d+)?)", low)
        if floor and 0 < float(floor.group(1)) <= 5:
            out.append(("min_score", float(floor.group(1)), scope))
    return out


def _reading(clause: Clause, start: int, length: int) -> int:
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
        return ", ".join(f"{k}: {_flatten(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_flatten(v) for v in value)
    return str(value)


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def profile_statements(profile: dict[str, Any]) -> list[str]:
    """Profile fields that state constraints (allergies, diet), as evidence sentences."""
    out = []
    for key, value in profile.items():
        if re.search(r"allerg|diet|restriction|disease|illness|过敏|饮食|忌口|疾病", str(key), re.I):
            text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            if text.strip().lower() not in ("", "none", "no", "n/a", "无"):
                out.append(f"{key}: {text}")
    return out


# ------------------------------------------------------------------------------------------ request facts


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
    match = re.search(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?", time_text or "")
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
    price = re.search(r"(?:under|below|less than|no more than|at most|within|up to|budget(?: of| is)?)\s*"
                      r"(?:¥|rmb|cny)?\s*(\d+(?:\.\d+)?)\s*(?:yuan|rmb|cny|¥|元|kuai)", low)
    if price:
        facts.max_price = float(price.group(1))
        taken(price)
    facts.count = _extract_count(low, spans, item_words or set())
    return facts


def _extract_date(low: str, today: date, taken: Any) -> str | None:
    iso = re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", low)
    if iso:
        taken(iso)
        try:
            return date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3))).isoformat()
        except ValueError:
            pass
    months = "|".join(m[:3] + r"[a-z]*" for m in _MONTHS)
    md = re.search(rf"\b({months})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", low) or \
        re.search(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({months})\b", low)
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
    wd = re.search(r"\b(this|next|coming)?\s*(" + "|".join(_WEEKDAYS) + r")\b", low)
    if wd:
        taken(wd)
        ahead = (_WEEKDAYS.index(wd.group(2)) - today.weekday()) % 7
        if ahead == 0 and wd.group(1) == "next":
            ahead = 7
        return (today + timedelta(days=ahead)).isoformat()
    if re.search(r"\bweekend\b", low):
        ahead = (5 - today.weekday()) % 7 if today.weekday() != 6 else 0
        return (today + timedelta(days=ahead)).isoformat()
    if "day after tomorrow" in low:
        return (today + timedelta(days=2)).isoformat()
    if re.search(r"\btomorrow\b", low):
        return (today + timedelta(days=1)).isoformat()
    if re.search(r"\b(today|tonight|this (morning|afternoon|evening))\b", low):
        return today.isoformat()
    return None


def _extract_time(low: str, taken: Any) -> str | None:
    ampm = re.search(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])", low)
    if ampm:
        taken(ampm)
        hour = int(ampm.group(1)) % 12 + (12 if ampm.group(3).startswith("p") else 0)
        return f"{hour:02d}:{int(ampm.group(2) or 0):02d}"
    clock = re.search(r"\b([01]?\d|2[0-3]):([0-5]\d)\b", low)
    if clock:
        taken(clock)
        return f"{int(clock.group(1)):02d}:{clock.group(2)}"
    if re.search(r"\bnoon\b", low):
        return "12:00"
    return None


def _extract_count(low: str, spans: list[tuple[int, int]], item_words: set[str]) -> int | None:
    pattern = r"\b(\d{1,3}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b"
    for match in re.finditer(pattern, low):
        if any(a <= match.start() < b for a, b in spans):
            continue
        word = match.group(1)
        if re.search(r"\d\.$", low[:match.start()]) or re.match(r"\.\d", low[match.end():]):
            continue  # a part of a decimal ("rated 4.6"), not a count
        value = int(word) if word.isdigit() else _NUMBER_WORDS[word]
        if value <= 0 or value > 200:
            continue
        after = tokenize(low[match.end():match.end() + 30])[:3]
        before = low[max(0, match.start() - 12):match.start()]
        if after and after[0] in _UNITS:
            continue
        if (any(w in _COUNT_NOUNS or w in item_words for w in after[:2]) or after[:2] == ["of", "us"]
                or re.search(r"(party of|table for|for)\s*$", before)):
            return value
    return None


# ------------------------------------------------------------------------------------------ tool results

ENTITY_KEYS = ("store_id", "shop_id", "hotel_id", "attraction_id", "flight_id", "train_id", "taxi_id")
NAME_KEYS = ("name", "shop_name", "hotel_name", "attraction_name", "flight_number", "train_number", "platform")
TYPE_KEYS = ("room_type", "seat_type", "ticket_type", "taxi_type")
RECORD_KEYS = ("order_id", "reservation_id", "book_id")


@dataclass
class Catalogue:
    """Entities and products seen in tool results, merged by id (later results add fields)."""

    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    products: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    def add(self, data: Any, parent: str | None = None) -> None:
        if isinstance(data, list):
            for item in data:
                self.add(item, parent)
            return
        if not isinstance(data, dict):
            return
        if any(key in data for key in RECORD_KEYS):
            return
        if "product_id" in data:
            owner = next((str(data[k]) for k in ENTITY_KEYS if data.get(k)), parent)
            product_key = (str(data["product_id"]), str(data.get("date") or ""))
            merged = {**self.products.get(product_key, {}), **data, "_owner": owner}
            self.products[product_key] = merged
            return
        key = next((k for k in ENTITY_KEYS if data.get(k)), None)
        if key is None:
            for value in data.values():
                if isinstance(value, (list, dict)):
                    self.add(value, parent)
            return
        eid = str(data[key])
        entity = self.entities.setdefault(eid, {"_id_key": key})
        if eid not in self.order:
            self.order.append(eid)
        entity.update({k: v for k, v in data.items() if k != "products"})
        if isinstance(data.get("products"), list):
            entity["_has_products"] = True
            self.add(data["products"], eid)


def entity_name(entity: dict[str, Any]) -> str:
    return next((str(entity[k]) for k in NAME_KEYS if entity.get(k)), "")


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value if str(v).strip()]
    return [part.strip() for part in str(value).split(",") if part.strip()]


@dataclass
class Candidate:
    """One option the agent could choose: an entity, and the product of it when products are chosen."""

    entity_id: str
    entity: dict[str, Any]
    product: dict[str, Any] | None
    position: int

    @property
    def product_id(self) -> str | None:
        return str(self.product["product_id"]) if self.product else None

    @property
    def score(self) -> float | None:
        return _number(self.entity.get("score"))

    @property
    def price(self) -> float | None:
        return _number(self.product.get("price")) if self.product else None

    @property
    def date(self) -> str:
        return str(self.product.get("date") or "")[:10] if self.product else ""

    @property
    def label(self) -> str:
        """A short human description: product name (or room/seat type) and entity name."""
        name = entity_name(self.entity) or self.entity_id
        if not self.product:
            return name
        what = self.product.get("name") or next((self.product[k] for k in TYPE_KEYS if self.product.get(k)), "")
        return f"{what} at {name}" if what else name

    def phrases(self) -> list[str]:
        """Descriptive phrases: entity and product tags, attributes, room/seat/ticket types."""
        cached = self.__dict__.get("_phrases")
        if cached is None:
            cached = self.__dict__["_phrases"] = self._phrases()
        return list(cached)

    def _phrases(self) -> list[str]:
        out = _as_list(self.entity.get("tags"))
        if self.product:
            out += _as_list(self.product.get("tags")) + _as_list(self.product.get("attributes"))
            for key in TYPE_KEYS:
                out += re.split(r"\s*[,/;()]\s*", str(self.product.get(key) or ""))
        return [p for p in (x.strip() for x in out) if p]

    def names(self) -> list[str]:
        out = [entity_name(self.entity)]
        if self.product and self.product.get("name"):
            out.append(str(self.product["name"]))
        return [n for n in out if n]

    def text(self) -> str:
        parts = self.names() + self.phrases() + [str(self.entity.get("description") or "")]
        return " ".join(parts)


_CANDIDATE_NEGATION = re.compile(r"^(?:no|non|without|not|zero)[\s\-]+(.+)$|^(.+?)[\s\-]+free$", re.I)


def candidate_phrase(phrase: str) -> tuple[int, str]:
    """Split a candidate's own negation off: ``non-smoking`` -> (-1, ``smoking``); ``gluten-free`` -> (-1, ...)."""
    match = _CANDIDATE_NEGATION.match(phrase.strip())
    if match:
        return -1, (match.group(1) or match.group(2)).strip()
    return 1, phrase.strip()


@dataclass
class Judgement:
    value: float
    reasons: list[str]


def score_candidate(candidate: Candidate, memory: PreferenceMemory, request_words: set[str],
                    context: set[str], situation: frozenset[tuple[str, str]] = frozenset()) -> Judgement:
    """How well a candidate fits the remembered preferences: +1 per liked phrase, -2 per disliked one, -2
    per violated threshold. Phrases that merely repeat the request (``coffee``) are not evidence; evidence
    limited to another situation than the conversation's (see :func:`situation_of`) is set aside."""
    value = 0.0
    reasons: list[str] = []
    seen: set[str] = set()
    for phrase in candidate.phrases():
        sign, core = candidate_phrase(phrase)
        words = tokenize(core)
        if not words or set(words) <= request_words:
            continue
        found = memory.polarity(words, situation)
        if found is None:
            continue
        polarity, clause = found
        key = " ".join(words)
        if key in seen:
            continue
        seen.add(key)
        if sign * polarity > 0:
            value += 1
            reasons.append(phrase)
        else:
            value -= 2
    # Names only count against a candidate (a disliked ingredient named in the dish), never for it.
    for name in candidate.names():
        words = [w for w in tokenize(name) if w not in request_words and w not in STOPWORDS]
        grams = [words[i:i + 2] for i in range(len(words) - 1)] + [[w] for w in words if len(w) > 3]
        for gram in grams:
            key = " ".join(gram)
            if key in seen:
                continue
            found = memory.polarity(gram, situation)
            if found is not None and found[0] < 0:
                seen.add(key)
                value -= 2
    floor = memory.threshold("min_score", context)
    if floor is not None and candidate.score is not None and candidate.score < floor:
        value -= 2
    cap = memory.threshold("max_price", context | set(tokenize(" ".join(candidate.phrases()))))
    if cap is not None and candidate.price is not None and candidate.price > cap:
        value -= 2
    return Judgement(value, reasons)


def relevance(candidate: Candidate, request_words: set[str]) -> int:
    """How many of the request's content words the candidate's text mentions."""
    return len(request_words & set(tokenize(candidate.text())))
