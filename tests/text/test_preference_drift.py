"""A preference memory reads a drifting history at its newest value, and a prefix sees none of the later lines."""

from __future__ import annotations

from pytest_vitabench.text.preferences import PreferenceMemory

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


def test_a_shorter_text_read_after_a_longer_one_sees_none_of_the_later_evidence():
    late = PreferenceMemory("\n".join(HISTORY))
    early = PreferenceMemory("\n".join(HISTORY[:3]))
    assert late.polarity("durian cake")[0] == 1 and late.threshold("min_score", set()) == 4.5
    assert early.polarity("durian cake")[0] == 1 and early.threshold("min_score", set()) is None
    assert PreferenceMemory("\n".join(HISTORY[:8])).polarity("durian cake")[0] == -1
    assert early.polarity("flat white") is None and late.polarity("flat white")[0] == 1
