"""The words the harness must agree on everywhere: what marks the answer, and which history records are evidence.

Plain data, no imports from the rest of the package: every layer may import it.
"""

from __future__ import annotations

import re
from typing import Any

# ------------------------------------------------------------------------------------------ hidden fields

#: Values of a ``*_type`` key that mark the answer in raw suite data (``product_type: "distraction"``).
ANSWER_MARKER_VALUES = frozenset({"target", "distraction", "normal", "irrelevant"})

#: Keys that never reach the agent, whatever their value: answer annotations of a subtask and of its items,
#: the ground-truth preferences (shown only by the ``groundtruth`` backend, which renders them itself), the
#: user's hidden intention (the user simulator reveals it when asked), and our generator's bookkeeping.
HIDDEN_KEYS = frozenset({
    "distraction_reason",
    "target_product_ids",
    "personalized_preference_memory",
    "user_intention",
    "rubric_checks",
    "rubric_sources",
    "history_noise",
})

#: ``*_type`` keys that describe an option rather than mark the answer: the agent chooses among them.
OPTION_TYPE_KEYS = ("room_type", "seat_type", "ticket_type", "taxi_type")
#: Every descriptive ``*_type`` key (options, and the kind of an order record).
DESCRIPTIVE_TYPE_KEYS = frozenset({*OPTION_TYPE_KEYS, "order_type"})

#: A serialised marker pair in agent-visible text (``"hotel_type": "target"``, ``store_type=distraction``): the
#: marker is the whole value, as :func:`is_answer_marker` reads it (``"room_type": "normal double"`` is no marker).
MARKER_PATTERN = re.compile(r'_type"?\s*[:=]\s*"?(?:' + "|".join(sorted(ANSWER_MARKER_VALUES)) + r")\b(?![ -]\w)",
                            re.IGNORECASE)


def is_answer_marker(key: str, value: Any) -> bool:
    """Whether ``key: value`` is a ``*_type`` marker whose value names the answer's role."""
    return key.endswith("_type") and isinstance(value, str) and value.strip().lower() in ANSWER_MARKER_VALUES


def is_hidden(key: str, value: Any) -> bool:
    """Whether a key/value pair of suite data would leak the answer to the agent."""
    return key in HIDDEN_KEYS or is_answer_marker(key, value)


def is_marker_key(key: str) -> bool:
    """Whether a key is a ``*_type`` marker by its name alone (any value), as VitaBench 2.0's judge strips them."""
    return key.endswith("_type") and key not in DESCRIPTIVE_TYPE_KEYS


# ------------------------------------------------------------------------------------------ history record types

#: Records of looking, not choosing: searches, browsing, clicks. They state no preference, so a memory reader
#: must not count them as evidence (the paper's "exploratory" noise).
SKIP_TYPES = frozenset({"search", "browse", "high_freq_browse", "view", "click", "搜索", "浏览", "高频浏览"})
#: Records holding a conversation; only the user's own turns are evidence.
DIALOGUE_TYPES = frozenset({"dialogue", "conversation", "chat", "对话"})
#: Records holding a review with a rating (the rating sets the review's polarity).
REVIEW_TYPES = frozenset({"review", "rate", "comment", "评价", "评分", "评论"})
#: Records whose content is disliked by default.
COMPLAINT_TYPES = frozenset({"complaint", "投诉"})
