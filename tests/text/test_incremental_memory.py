"""The preference memory built incrementally answers exactly as one built from scratch.

Memories of texts that extend one another share append-only evidence logs (``text/preferences.py``). These
tests read growing histories in the orders a run may produce (interleaved users, later subtasks first,
truncated and diverging texts, several threads) and compare every answer with a memory read from scratch.
"""

from __future__ import annotations

import random
import threading
from itertools import pairwise

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.config import RunConfig
from pytest_vitabench.runner import ItemRunner
from pytest_vitabench.text.clauses import profile_statements, situation_of
from pytest_vitabench.text.preferences import PreferenceMemory, reset_memory_caches
from pytest_vitabench.text.words import tokenize

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
SITUATIONS = [frozenset(), situation_of(["before my morning meeting"]), situation_of(["dinner with a client"])]

#: A drifting history: liked, then disliked, conditions, thresholds, records that are not evidence.
HISTORY = [
    '- [2025-01-02] [order] {"store": "Blue Cup", "items": "oat latte, no sugar"}',
    "- [2025-01-03] [dialogue] user: I love durian cake | assistant: Noted!",
    '- [2025-01-05] [search] {"keyword": "pork buns"}',
    "- [2025-01-08] [dialogue] user: decaf before afternoon meetings please | assistant: Sure.",
    '- [2025-01-09] [review] {"rating": 1, "text": "the spicy noodles upset my stomach"}',
    "- [2025-01-12] [dialogue] user: keep lunch under 40 yuan | assistant: OK.",
    "- [2025-01-15] [dialogue] user: I'm tired of durian cake, switched from oat latte to flat white | "
    "assistant: Got it.",
    "- [2025-01-16] [dialogue] user: for my husband: pork buns | assistant: OK.",
    '- [2025-01-20] [complaint] {"issue": "cold coffee again"}',
    "- [2025-01-22] [dialogue] user: only merchants rated at least 4.5 from now on | assistant: Sure.",
    "- [2025-01-25] [dialogue] user: can't get enough of durian cake after all | assistant: Ha!",
    "- [2025-01-28] [dialogue] user: no spicy noodles when I'm with a client | assistant: Noted.",
]


def _questions(text: str) -> list[tuple[str, ...]]:
    words = sorted({w for line in text.splitlines() for w in tokenize(line)})
    tokens = tokenize(text)
    return [(w,) for w in words] + sorted({tuple(tokens[i:i + 2]) for i in range(len(tokens) - 1)})


def _answers(memory: PreferenceMemory, text: str) -> tuple[object, ...]:
    contexts = [{"lunch"}, {"coffee"}, set()]
    return (
        [(c.tokens, c.default, c.text, dict(c.conditions)) for c in memory.clauses],
        [(t.kind, t.value, t.scope, t.order) for t in memory.thresholds],
        [memory.polarity(q, s) for q in _questions(text) for s in SITUATIONS],
        [memory.threshold(kind, c) for kind in ("max_price", "min_score") for c in contexts],
        bool(memory),
    )


def _fresh(text: str, extra: tuple[str, ...]) -> tuple[object, ...]:
    reset_memory_caches()
    return _answers(PreferenceMemory(text, extra), text)


def _check_against_fresh(read: list[tuple[str, tuple[str, ...], PreferenceMemory]]) -> None:
    expected = {(text, extra): _fresh(text, extra) for text, extra, _ in read}
    for text, extra, memory in read:
        assert _answers(memory, text) == expected[(text, extra)], (text[-80:], extra)


def _growing(lines: list[str]) -> list[str]:
    return ["\n".join(lines[:k]) for k in range(len(lines) + 1)]


def test_growing_histories_read_in_any_order_answer_as_fresh():
    alice = _growing(HISTORY)
    bob = _growing([line.replace("durian", "mango").replace("40", "55") for line in reversed(HISTORY)])
    jobs = [(t, ("allergies: peanuts",)) for t in alice] + [(t, ()) for t in bob]
    jobs += [(t, ()) for t in alice[::3]]  # the same text under another profile: a log of its own
    for seed in range(3):
        random.Random(seed).shuffle(jobs)
        reset_memory_caches()
        read = [(text, extra, PreferenceMemory.cached(text, extra)) for text, extra in jobs]
        _check_against_fresh(read)


def test_truncated_and_diverging_texts_answer_as_fresh():
    full = "\n".join(HISTORY)
    texts = [full, full[len(HISTORY[0]) + 7:], "\n".join(HISTORY[:6] + ["- a new line: no cake"] + HISTORY[6:]),
             "\n".join(HISTORY[:5]) + "\n", full + "\n\n- last: vanilla please", "", "- partial line without en"]
    reset_memory_caches()
    read = [(text, (), PreferenceMemory.cached(text)) for text in texts]
    _check_against_fresh(read)


def test_a_shorter_text_read_after_a_longer_one_sees_none_of_the_later_evidence():
    reset_memory_caches()
    late = PreferenceMemory("\n".join(HISTORY))
    early = PreferenceMemory("\n".join(HISTORY[:3]))
    assert late.polarity("durian cake")[0] == 1 and late.threshold("min_score", set()) == 4.5
    assert early.polarity("durian cake")[0] == 1 and early.threshold("min_score", set()) is None
    assert PreferenceMemory("\n".join(HISTORY[:8])).polarity("durian cake")[0] == -1
    assert early.polarity("flat white") is None and late.polarity("flat white")[0] == 1


def test_threads_reading_growing_histories_answer_as_fresh():
    texts = _growing(HISTORY)
    reset_memory_caches()
    read: list[tuple[str, tuple[str, ...], PreferenceMemory]] = []
    lock = threading.Lock()

    def work(order: list[str]) -> None:
        for text in order:
            memory = PreferenceMemory.cached(text)
            with lock:
                read.append((text, (), memory))

    orders = [texts, texts[::-1], texts[::2] + texts[1::2], texts]
    threads = [threading.Thread(target=work, args=(order,)) for order in orders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(read) == sum(len(o) for o in orders)
    _check_against_fresh(read)


def test_the_demo_suites_full_context_memories_answer_as_fresh():
    """Real rendered histories: every user's memory before each subtask, users interleaved."""
    if not DEMO.exists():
        pytest.skip(f"{DEMO} not found")
    runner = ItemRunner(RunConfig(memory=["full_context"]))
    suite = runner.suite(DEMO)
    per_user = []
    for user in suite.users:
        assert user.task is not None, user.error
        extra = tuple(profile_statements(user.task.user_profile))
        texts = [runner.memory_for(suite, user, i, "full_context", trial=0).read()
                 for i in range(len(user.task.subtasks))]
        assert all(b.startswith(a) for a, b in pairwise(texts))  # a history grows by appending
        per_user.append([(text, extra) for text in texts])
    longest = max(len(rows) for rows in per_user)
    jobs = [rows[i] for i in range(longest) for rows in per_user if i < len(rows)]
    reset_memory_caches()
    read = [(text, extra, PreferenceMemory.cached(text, extra)) for text, extra in jobs]
    _check_against_fresh(read)


@pytest.mark.parametrize("joiner", ["\n", "\r\n", "\r", "\u2028"])
def test_texts_that_extend_one_another_at_any_line_break_answer_as_fresh(joiner):
    """A text that extends the last one read is recognised by comparing strings, not lines: every way a
    line may end or be continued (a break split between texts, a trailing break, a blank line) reads as
    the whole text read afresh."""
    full = joiner.join(HISTORY)
    cut = len(joiner.join(HISTORY[:4]))
    texts = [full[:cut], full[:cut + 1], full[:cut + len(joiner)], full[:cut] + "\n", full[:cut] + "\n\n",
             full[:cut] + "\n\n" + HISTORY[5], full[:cut] + "\r", full[:cut] + "\r\n" + HISTORY[6],
             full[:cut] + " and no more cake", full[:cut] + "\n" + HISTORY[7][:20], full]
    for order in (texts, texts[::-1], sorted(texts)):
        reset_memory_caches()
        read = [(text, (), PreferenceMemory.cached(text)) for text in order]
        _check_against_fresh(read)
