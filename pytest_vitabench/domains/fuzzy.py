"""Fuzzy text matching for the search tools: ours (:func:`fuzzy_rank`) and VitaBench 2.0's (:func:`official_rank`).

Both score with rapidfuzz's partial ratio and keep every candidate (no score threshold). They differ in what they
compare: ours lower-cases, joins keywords with spaces and breaks ties by id; VitaBench 2.0's tools (``thefuzz``'s
``process.extract`` with ``fuzz.partial_ratio``) join keywords with nothing, strip punctuation with the default
processor, keep ties in input order, and map candidates that share a text to the last of them
(``--vita-deviation search``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

SEARCH_TOP_K = 100
#: VitaBench 2.0's minimum score for a city or an address to match (``fuzzy_match``).
OFFICIAL_MATCH = 40

T = TypeVar("T")


def fuzzy_rank(
    keywords: str | Sequence[str], candidates: Iterable[tuple[str, str, T]], top_k: int = SEARCH_TOP_K
) -> list[T]:
    """Rank candidates by fuzzy similarity to the keywords.

    Args:
        keywords: One string or a list (joined with spaces).
        candidates: ``(id, text, item)`` triples; ``id`` breaks ties so the order is deterministic.
        top_k: Maximum number of results.

    Returns:
        The items, best first. As in VitaBench 2.0 there is no score threshold.
    """
    query = keywords if isinstance(keywords, str) else " ".join(str(k) for k in keywords)
    query = query.lower().strip()
    scored = [
        (fuzz.partial_ratio(query, text.lower()) if query else 0.0, cid, item)
        for cid, text, item in candidates
    ]
    scored.sort(key=lambda row: (-row[0], row[1]))
    return [item for _, _, item in scored[:top_k]]


def official_rank(
    keywords: str | Sequence[str], candidates: Iterable[tuple[str, str, T]], top_k: int = SEARCH_TOP_K
) -> list[T]:
    """Rank candidates as VitaBench 2.0's search tools do (:attr:`~.base.ToolRules.official_search`).

    Reproduces ``thefuzz.process.extract(query, texts, limit=None, scorer=fuzz.partial_ratio)`` over the
    candidates' texts followed by its text-to-id lookup: query and texts pass through the default
    processor (letters and digits only, lower case, trimmed), the order is by unrounded score with ties in input
    order, and a text several candidates share resolves to the last of them (so that one appears once per sharer).

    Args:
        keywords: One string, or a list joined with no separator (as VitaBench 2.0's tools join it).
        candidates: ``(id, text, item)`` triples in the database's order; ``id`` is not used.
        top_k: Maximum number of results.
    """
    query = default_process(keywords if isinstance(keywords, str) else "".join(str(k) for k in keywords))
    rows = [(text, item) for _, text, item in candidates]
    # VitaBench 2.0's tools invert {id: text} into {text: id}: the last id of a shared text wins.
    owner = {text: item for text, item in rows}
    scores = [fuzz.partial_ratio(query, default_process(text)) for text, _ in rows]
    order = sorted(range(len(rows)), key=lambda i: -scores[i])  # stable: ties keep input order
    return [owner[rows[i][0]] for i in order[:top_k]]


def official_score(query: str, text: str) -> float:
    """VitaBench 2.0's search score of one text: partial ratio after the default processor on both sides."""
    return float(fuzz.partial_ratio(default_process(query), default_process(text)))


def official_match(query: str, text: str) -> bool:
    """VitaBench 2.0's city and address filter: raw partial ratio (no processing), rounded, at least 40."""
    return round(fuzz.partial_ratio(query, text)) >= OFFICIAL_MATCH


def fuzzy_score(a: str, b: str) -> float:
    """Case-insensitive partial-ratio similarity of two texts, 0-100."""
    return float(fuzz.partial_ratio(a.lower(), b.lower()))


def full_score(a: str, b: str) -> float:
    """Case-insensitive whole-text similarity of two texts, 0-100."""
    return float(fuzz.ratio(a.lower(), b.lower()))
