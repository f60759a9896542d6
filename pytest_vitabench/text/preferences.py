"""What the user currently thinks of a phrase, read from memory text (no model, no network).

:class:`PreferenceMemory` reads memory text (ground-truth tag lines, ``full_context`` history lines, or free
text) into evidence clauses (:mod:`.clauses`) and answers "what does the user currently think of <phrase>?":
the latest clause that mentions the phrase decides, so a preference that drifted is read at its newest value.
A clause limited to a situation ("decaf before afternoon meetings") counts only when the conversation names no
other situation of the same kind (a morning meeting). It also answers thresholds: price caps and rating floors.

Cost: a user's history grows by appending, and the memory before subtask *i+1* is the memory before subtask
*i* plus new lines. So evidence is kept in append-only logs (:class:`_EvidenceLog`), one per growing text, and
a memory is a view of a log's first *n* lines: reading the next subtask's text parses only its new lines, and
every trial of a subtask shares one view (and its query cache), in whatever order a run interleaves users.
"""

from __future__ import annotations

import re
import threading
from array import array
from bisect import bisect_left
from collections import OrderedDict
from functools import lru_cache

from .clauses import Clause, ParsedLine, applies, clear_parse_caches, parse_line, parse_statement, reading
from .words import STOPWORDS, find_phrase, token_tuple

#: Words that make a threshold clause apply to any merchant.
_GENERIC_SCOPE = frozenset("merchant merchants store stores shop shops place places restaurant restaurants "
                           "everything anything always all".split())
#: Words of a threshold clause that name no subject ("rating no less than 4.3", "评分4.3以上").
_THRESHOLD_WORDS = frozenset("rating rate rated score scoring star review must should be only no not less than more "
                             "least at above over below under higher lower minimum maximum yuan rmb price cost".split())
#: The characters str.splitlines() breaks at.
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
#: Growing texts whose evidence is kept; a run reads users in collection order, a few in flight at once.
MAX_LOGS = 16


class Threshold:
    """A threshold the memory states: ``kind`` is ``"max_price"`` or ``"min_score"``; ``order`` is the index of
    the last clause read before it."""

    __slots__ = ("kind", "value", "scope", "order")

    def __init__(self, kind: str, value: float, scope: frozenset[str], order: int):
        self.kind, self.value, self.scope, self.order = kind, value, scope, order


class PreferenceMemory:
    """Evidence about the user's preferences, read from memory text.

    Args:
        text: The memory text: ground-truth tag lines, ``full_context`` history lines, or free text.
        extra: Further statements to read first (older than the memory), e.g. the profile's allergies.

    Memories of texts that extend one another share their parsed evidence (see the module docstring); a
    memory never changes once built, so one instance may serve several threads.
    """

    def __init__(self, text: str = "", extra: list[str] | tuple[str, ...] | None = None):
        log, lines = _LOGS.locate(text or "", tuple(extra or ()))
        self._bind(log, lines)

    def _bind(self, log: _EvidenceLog, lines: int) -> None:
        self._log = log
        self._clause_count, self._threshold_count = log.marks[lines]
        self._cache: dict[tuple[tuple[str, ...], frozenset[tuple[str, str]]], tuple[int, str] | None] = {}

    @classmethod
    def cached(cls, text: str, extra: tuple[str, ...] = ()) -> PreferenceMemory:
        """A shared, read-only memory for this text (the agents re-read the same memory on every turn)."""
        return _recent_memory(text, extra)

    def __bool__(self) -> bool:
        return self._clause_count > 0

    @property
    def clauses(self) -> list[Clause]:
        """The evidence clauses, oldest first."""
        return self._log.clauses[:self._clause_count]

    @property
    def thresholds(self) -> list[Threshold]:
        """The stated thresholds, oldest first."""
        return self._log.thresholds[:self._threshold_count]

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
        key = (words, situation)
        if key in self._cache:
            return self._cache[key]
        spans = [words]
        for size in range(len(words) - 1, 1, -1):
            spans += [words[i:i + size] for i in range(len(words) - size + 1)]
        found = None
        for span in spans:
            found = self._latest(span, situation)
            if found is not None:
                break
        self._cache[key] = found
        return found

    def _latest(self, span: tuple[str, ...], situation: frozenset[tuple[str, str]]) -> tuple[int, str] | None:
        orders = self._log.index.get(span[0])
        if not orders:
            return None
        clauses = self._log.clauses
        # The log may hold clauses of a longer text than this memory's: only orders below the count are ours.
        for position in range(bisect_left(orders, self._clause_count) - 1, -1, -1):
            clause = clauses[orders[position]]
            if not applies(clause, situation):
                continue
            for start in find_phrase(clause.tokens, span):
                value = reading(clause, start, len(span))
                if value:
                    return value, clause.text
        return None

    def threshold(self, kind: str, context: set[str]) -> float | None:
        """The latest threshold of ``kind`` whose clause is about this context (or about any merchant)."""
        thresholds = self._log.thresholds
        for position in range(self._threshold_count - 1, -1, -1):
            item = thresholds[position]
            if item.kind == kind and (item.scope & context or item.scope & _GENERIC_SCOPE or _unscoped(item.scope)):
                return item.value
        return None


def _unscoped(scope: frozenset[str]) -> bool:
    """A threshold clause without any subject word applies to every merchant."""
    return not {w for w in scope if w not in _THRESHOLD_WORDS and w not in STOPWORDS
                and not re.fullmatch(r"[\d.]+", w)}


class _EvidenceLog:
    """The evidence of one growing text, appended line by line: the statements ``extra`` first, then lines.

    ``marks[k]`` is (clauses, thresholds) after the first ``k`` lines, so a memory of any prefix of the lines
    read so far is a view of this log. Only ever appended to, under :class:`_Logs`'s lock.
    """

    def __init__(self, extra: tuple[str, ...]):
        self.extra = extra
        self.lines: list[str] = []
        #: The longest text read into this log (its lines are ``lines``): a text that extends it by whole
        #: lines is recognised by a string comparison, without splitting and comparing its lines again.
        self.text = ""
        self.clauses: list[Clause] = []
        self.thresholds: list[Threshold] = []
        #: token -> orders of the clauses that contain it, ascending.
        self.index: dict[str, array[int]] = {}
        for statement in extra:
            self._add(parse_statement(statement))
        self.marks: list[tuple[int, int]] = [(len(self.clauses), len(self.thresholds))]
        #: One memory per prefix length asked for, so its query cache serves every trial.
        self.memories: dict[int, PreferenceMemory] = {}

    def _add(self, parsed: ParsedLine) -> None:
        clauses, index = self.clauses, self.index
        for clause in parsed.clauses:
            order = len(clauses)
            clauses.append(clause)
            for token in set(clause.tokens):
                orders = index.get(token)
                if orders is None:
                    orders = index[token] = array("l")
                orders.append(order)
        base = len(clauses) - 1
        for stated in parsed.thresholds:
            self.thresholds.append(Threshold(stated.kind, stated.value, stated.scope, base))

    def extend(self, lines: list[str]) -> None:
        clauses, thresholds, marks = self.clauses, self.thresholds, self.marks
        for line in lines:
            parsed = parse_line(line)
            if parsed.clauses or parsed.thresholds:  # most history lines (searches, browsing) state nothing
                self._add(parsed)
            marks.append((len(clauses), len(thresholds)))
        self.lines += lines

    def shared(self, lines: list[str]) -> int:
        """How many leading ``lines`` this log has read."""
        size = min(len(self.lines), len(lines))
        if self.lines[:size] == lines[:size]:  # the common case (a history that grew), compared in C
            return size
        count = 0
        while self.lines[count] == lines[count]:
            count += 1
        return count

    def extension(self, text: str) -> list[str] | None:
        """The lines ``text`` adds to this log's text when it extends it by whole lines, else None.

        Conservative: None sends the caller to the line-by-line comparison, which finds every other case.
        """
        known = self.text
        if not known or known[-1] in _LINE_BREAKS or not text.startswith(known):
            return None
        if len(text) == len(known):
            return []
        # Only a lone "\n" right after the known text ends its last line exactly as splitlines() did.
        return text[len(known) + 1:].splitlines() if text[len(known)] == "\n" else None

    def memory(self, lines: int) -> PreferenceMemory:
        found = self.memories.get(lines)
        if found is None:
            found = self.memories[lines] = PreferenceMemory.__new__(PreferenceMemory)
            found._bind(self, lines)
        return found


class _Logs:
    """The evidence logs of the texts read recently, least recently used dropped first."""

    def __init__(self, size: int):
        self.size = size
        self._logs: OrderedDict[int, _EvidenceLog] = OrderedDict()
        self._lock = threading.Lock()
        self._ids = 0

    def locate(self, text: str, extra: tuple[str, ...]) -> tuple[_EvidenceLog, int]:
        """A log holding ``text``'s evidence and its line count (a log it extends, or grown, or new)."""
        with self._lock:
            for key, log in reversed(self._logs.items()):
                if log.extra != extra:
                    continue
                added = log.extension(text)
                if added is not None:  # the common case: the history grew since the last subtask
                    self._logs.move_to_end(key)
                    if added:
                        log.extend(added)
                        log.text = text
                    return log, len(log.lines)
        lines = text.splitlines()
        with self._lock:
            best: tuple[int, _EvidenceLog] | None = None
            for key, log in reversed(self._logs.items()):
                if log.extra != extra:
                    continue
                shared = log.shared(lines)
                if shared == len(lines) or shared == len(log.lines):
                    best = (key, log)
                    break
            if best is None:
                self._ids += 1
                best = (self._ids, _EvidenceLog(extra))
                self._logs[self._ids] = best[1]
                while len(self._logs) > self.size:
                    self._logs.popitem(last=False)
            key, log = best
            self._logs.move_to_end(key)
            if len(lines) > len(log.lines):
                log.extend(lines[len(log.lines):])
                log.text = text
            elif len(lines) == len(log.lines):
                log.text = text
            return log, len(lines)

    def memory(self, text: str, extra: tuple[str, ...]) -> PreferenceMemory:
        log, lines = self.locate(text, extra)
        with self._lock:
            return log.memory(lines)

    def clear(self) -> None:
        with self._lock:
            self._logs.clear()


_LOGS = _Logs(MAX_LOGS)


@lru_cache(maxsize=8)
def _recent_memory(text: str, extra: tuple[str, ...]) -> PreferenceMemory:
    # The agent asks again on every turn: a text asked recently answers without re-splitting it.
    return _LOGS.memory(text, extra)


def reset_memory_caches() -> None:
    """Forget every parsed memory (for benchmarks that measure a cold start)."""
    _LOGS.clear()
    _recent_memory.cache_clear()
    clear_parse_caches()
