"""The options a built-in agent can choose, read from tool results, and how well each fits the user.

:class:`Catalogue` collects the entities (stores, shops, hotels, trains, ...) and products that tool results
mention; :class:`Candidate` is one option; :class:`CandidateScorer` ranks it against
a :class:`~pytest_vitabench.text.preferences.PreferenceMemory`, :func:`relevance` against the request.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from ..text.clauses import as_number
from ..text.preferences import PreferenceMemory
from ..text.vocabulary import OPTION_TYPE_KEYS
from ..text.words import STOPWORDS, token_tuple, tokenize

ENTITY_KEYS = ("store_id", "shop_id", "hotel_id", "attraction_id", "flight_id", "train_id", "taxi_id")
NAME_KEYS = ("name", "shop_name", "hotel_name", "attraction_name", "flight_number", "train_number", "platform")
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
            self.products[product_key] = {**self.products.get(product_key, {}), **data, "_owner": owner}
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
        return as_number(self.entity.get("score"))

    @property
    def price(self) -> float | None:
        return as_number(self.product.get("price")) if self.product else None

    @property
    def date(self) -> str:
        return str(self.product.get("date") or "")[:10] if self.product else ""

    @property
    def label(self) -> str:
        """A short human description: product name (or room/seat type) and entity name."""
        name = entity_name(self.entity) or self.entity_id
        if not self.product:
            return name
        what = self.product.get("name") or next((self.product[k] for k in OPTION_TYPE_KEYS if self.product.get(k)), "")
        return f"{what} at {name}" if what else name

    def phrases(self) -> list[str]:
        """Descriptive phrases: entity and product tags, attributes, room/seat/ticket types."""
        return self._phrases

    # Read several times per ranking (relevance, the scorer, thresholds); the entity and product never change.
    @functools.cached_property
    def _phrases(self) -> list[str]:
        out = _as_list(self.entity.get("tags"))
        if self.product:
            out += _as_list(self.product.get("tags")) + _as_list(self.product.get("attributes"))
            for key in OPTION_TYPE_KEYS:
                out += _OPTION_SPLIT.split(str(self.product.get(key) or ""))
        return [p for p in (x.strip() for x in out) if p]

    @functools.cached_property
    def _phrase_tokens(self) -> frozenset[str]:
        return frozenset(tokenize(" ".join(self.phrases())))

    def phrase_tokens(self) -> frozenset[str]:
        """The tokens of all descriptive phrases (what a threshold's scope may name)."""
        return self._phrase_tokens

    def names(self) -> list[str]:
        out = [entity_name(self.entity)]
        if self.product and self.product.get("name"):
            out.append(str(self.product["name"]))
        return [n for n in out if n]

    def text(self) -> str:
        return " ".join(self.names() + self.phrases() + [str(self.entity.get("description") or "")])

    def text_tokens(self) -> frozenset[str]:
        """The tokens of :meth:`text`."""
        return frozenset(tokenize(self.text()))


_OPTION_SPLIT = re.compile(r"\s*[,/;()]\s*")
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


class CandidateScorer:
    """Scores the candidates of one ranking: one memory, request, context and situation for all of them.

    Args:
        request_words: The request's content words; phrases that merely repeat them are not evidence.
        context: Words of the request, the decision kind and the candidates, which a threshold's scope
            must name to apply; not modified while the scorer is in use.
    """

    def __init__(self, memory: PreferenceMemory, request_words: set[str] | frozenset[str], context: set[str],
                 situation: frozenset[tuple[str, str]] = frozenset()):
        self.memory, self.request_words, self.context, self.situation = memory, request_words, context, situation
        # Candidates of one ranking share most of their tags and words: each is looked up once in the memory.
        self._polarities: dict[tuple[str, ...], tuple[int, str] | None] = {}
        self._phrase_words: dict[str, tuple[int, tuple[str, ...]]] = {}
        self._floor = memory.threshold("min_score", context)

    def polarity(self, words: tuple[str, ...]) -> tuple[int, str] | None:
        if words not in self._polarities:
            self._polarities[words] = self.memory.polarity(words, self.situation)
        return self._polarities[words]

    def __call__(self, candidate: Candidate) -> Judgement:
        """How well a candidate fits the remembered preferences: +1 per liked phrase, -2 per disliked one, -2
        per violated threshold. Phrases that merely repeat the request (``coffee``) are not evidence; evidence
        limited to another situation than the conversation's (see :func:`situation_of`) is set aside."""
        memory, request_words = self.memory, self.request_words
        value = 0.0
        reasons: list[str] = []
        seen: set[str] = set()
        for phrase in candidate.phrases():
            if phrase not in self._phrase_words:
                sign, core = candidate_phrase(phrase)
                self._phrase_words[phrase] = sign, token_tuple(core)
            sign, words = self._phrase_words[phrase]
            if not words or request_words.issuperset(words):
                continue
            found = self.polarity(words)
            if found is None:
                continue
            key = " ".join(words)
            if key in seen:
                continue
            seen.add(key)
            if sign * found[0] > 0:
                value += 1
                reasons.append(phrase)
            else:
                value -= 2
        # Names only count against a candidate (a disliked ingredient named in the dish), never for it.
        for name in candidate.names():
            kept = [w for w in tokenize(name) if w not in STOPWORDS and w not in request_words]
            grams = [kept[i:i + 2] for i in range(len(kept) - 1)] + [[w] for w in kept if len(w) > 3]
            for gram in grams:
                key = " ".join(gram)
                if key in seen:
                    continue
                found = self.polarity(tuple(gram))
                if found is not None and found[0] < 0:
                    seen.add(key)
                    value -= 2
        floor = self._floor
        if floor is not None and candidate.score is not None and candidate.score < floor:
            value -= 2
        cap = memory.threshold("max_price", self.context | candidate.phrase_tokens())
        if cap is not None and candidate.price is not None and candidate.price > cap:
            value -= 2
        return Judgement(value, reasons)


def relevance(candidate: Candidate, request_words: set[str]) -> int:
    """How many of the request's content words the candidate's text mentions."""
    return len(request_words & candidate.text_tokens())
