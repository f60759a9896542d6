"""Fuzzy text matching, as the official tools search: rapidfuzz's partial ratio, no score threshold."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

SEARCH_TOP_K = 100

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
        The items, best first. As in the official harness there is no score threshold.
    """
    from rapidfuzz import fuzz  # imported on first search: collection never pays for it

    query = keywords if isinstance(keywords, str) else " ".join(str(k) for k in keywords)
    query = query.lower().strip()
    scored = [
        (fuzz.partial_ratio(query, text.lower()) if query else 0.0, cid, item)
        for cid, text, item in candidates
    ]
    scored.sort(key=lambda row: (-row[0], row[1]))
    return [item for _, _, item in scored[:top_k]]


def fuzzy_score(a: str, b: str) -> float:
    """Case-insensitive partial-ratio similarity of two texts, 0-100."""
    from rapidfuzz import fuzz

    return float(fuzz.partial_ratio(a.lower(), b.lower()))


def full_score(a: str, b: str) -> float:
    """Case-insensitive whole-text similarity of two texts, 0-100."""
    from rapidfuzz import fuzz

    return float(fuzz.ratio(a.lower(), b.lower()))
