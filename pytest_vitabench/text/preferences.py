"""What the user currently thinks of a phrase, read from memory text (no model, no network).

The latest clause that mentions the phrase decides, so a preference that drifted is read at its newest value.
A clause limited to a situation counts only when the conversation names no other situation of the same kind.
"""

from __future__ import annotations

import re

from .clauses import Clause, ParsedLine, StatedThreshold, applies, parse_line, parse_statement, reading
from .words import STOPWORDS, find_phrase, token_tuple

#: Words that make a threshold clause apply to any merchant.
_GENERIC_SCOPE = frozenset("merchant merchants store stores shop shops place places restaurant restaurants "
                           "everything anything always all".split())
#: Words of a threshold clause that name no subject ("rating no less than 4.3", "评分4.3以上").
_THRESHOLD_WORDS = frozenset("rating rate rated score scoring star review must should be only no not less than more "
                             "least at above over below under higher lower minimum maximum yuan rmb price cost".split())


class PreferenceMemory:
    """Evidence about the user's preferences, read from memory text.

    Args:
        text: The memory text: ground-truth tag lines, ``full_context`` history lines, or free text.
        extra: Further statements to read first (older than the memory), e.g. the profile's allergies.
    """

    def __init__(self, text: str = "", extra: list[str] | tuple[str, ...] | None = None):
        #: The evidence clauses and the stated thresholds, oldest first.
        self.clauses: list[Clause] = []
        self.thresholds: list[StatedThreshold] = []
        #: token -> orders of the clauses that contain it, ascending.
        self._index: dict[str, list[int]] = {}
        for statement in extra or ():
            self._add(parse_statement(statement))
        for line in (text or "").splitlines():
            self._add(parse_line(line))

    def extend(self, text: str) -> None:
        """Read the lines of ``text`` after the memory's own (its owner's to call: queries see the new lines)."""
        for line in text.splitlines():
            self._add(parse_line(line))

    def _add(self, parsed: ParsedLine) -> None:
        for clause in parsed.clauses:
            order = len(self.clauses)
            self.clauses.append(clause)
            for token in set(clause.tokens):
                self._index.setdefault(token, []).append(order)
        self.thresholds += parsed.thresholds

    def __bool__(self) -> bool:
        return bool(self.clauses)

    # -- queries
    def polarity(self, phrase: str | list[str] | tuple[str, ...],
                 situation: frozenset[tuple[str, str]] = frozenset()) -> tuple[int, str] | None:
        """The current polarity of a phrase (+1 liked, -1 disliked) and the clause that decided it.

        The latest clause that mentions the phrase with a non-neutral reading decides (preferences drift).
        Clauses limited to another situation than ``situation`` are set aside. Multi-word phrases with no
        evidence fall back to their longest sub-phrases of two or more words.
        """
        words = token_tuple(str(phrase)) if isinstance(phrase, str) else tuple(phrase)
        if not words:
            return None
        spans = [words]
        for size in range(len(words) - 1, 1, -1):
            spans += [words[i:i + size] for i in range(len(words) - size + 1)]
        for span in spans:
            found = self._latest(span, situation)
            if found is not None:
                return found
        return None

    def _latest(self, span: tuple[str, ...], situation: frozenset[tuple[str, str]]) -> tuple[int, str] | None:
        for order in reversed(self._index.get(span[0], ())):
            clause = self.clauses[order]
            if not applies(clause, situation):
                continue
            for start in find_phrase(clause.tokens, span):
                value = reading(clause, start, len(span))
                if value:
                    return value, clause.text
        return None

    def threshold(self, kind: str, context: set[str]) -> float | None:
        """The latest threshold of ``kind`` whose clause is about this context (or about any merchant)."""
        for item in reversed(self.thresholds):
            if item.kind == kind and (item.scope & context or item.scope & _GENERIC_SCOPE or _unscoped(item.scope)):
                return item.value
        return None


def _unscoped(scope: frozenset[str]) -> bool:
    """A threshold clause without any subject word applies to every merchant."""
    return not {w for w in scope if w not in _THRESHOLD_WORDS and w not in STOPWORDS
                and not re.fullmatch(r"[\d.]+", w)}
