"""The one vocabulary: what marks the answer and which history records are evidence, defined once.

These pin the union the old copies agreed on (domain views, official judge, validator, memory reader) and
guard against a new copy: no other module may define its own list of hidden keys or skip types.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pytest_vitabench
from pytest_vitabench.official.outcome import sanitise
from pytest_vitabench.text import vocabulary
from pytest_vitabench.text.preferences import PreferenceMemory
from pytest_vitabench.text.vocabulary import (
    ANSWER_MARKER_VALUES,
    HIDDEN_KEYS,
    MARKER_PATTERN,
    OPTION_TYPE_KEYS,
    SKIP_TYPES,
    is_hidden,
    is_marker_key,
)

PACKAGE = Path(pytest_vitabench.__file__).parent

#: What each former copy hid (domains/shared.py, synth/validator.py); the one vocabulary keeps their union.
FORMER_HIDDEN_KEYS = {"distraction_reason", "target_product_ids", "personalized_preference_memory",
                      "user_intention", "rubric_checks", "rubric_sources", "history_noise"}
FORMER_MARKER_VALUES = {"target", "distraction", "normal", "irrelevant"}
FORMER_SKIP_TYPES = {"search", "browse", "high_freq_browse", "view", "click", "搜索", "浏览", "高频浏览"}


def test_the_vocabulary_keeps_the_union_of_the_former_copies():
    assert FORMER_HIDDEN_KEYS <= HIDDEN_KEYS
    assert FORMER_MARKER_VALUES <= ANSWER_MARKER_VALUES
    assert FORMER_SKIP_TYPES <= SKIP_TYPES


@pytest.mark.parametrize("key", sorted(FORMER_HIDDEN_KEYS))
def test_a_hidden_key_is_hidden_whatever_its_value(key):
    assert is_hidden(key, "anything")
    assert is_hidden(key, ["P1"])
    assert sanitise({key: "x", "name": "kept"}) == {"name": "kept"}


@pytest.mark.parametrize("value", sorted(FORMER_MARKER_VALUES) + [" Target ", "DISTRACTION"])
def test_a_marker_value_under_a_type_key_is_hidden(value):
    assert is_hidden("store_type", value)
    assert is_hidden("room_type", value)  # even a descriptive key cannot carry the answer
    assert MARKER_PATTERN.search(f'{{"product_type": "{value.strip()}"}}')


def test_descriptive_type_keys_are_shown_and_judged():
    for key in OPTION_TYPE_KEYS:
        assert not is_hidden(key, "king bed, non-smoking")
        assert not is_marker_key(key)
    assert not is_marker_key("order_type")
    assert is_marker_key("hotel_type") and is_marker_key("store_type")
    assert not is_hidden("store_type", "noodle shop")  # the views drop *_type by value; the judge by name
    assert sanitise({"store_type": "noodle shop", "room_type": "double"}) == {"room_type": "double"}
    assert not MARKER_PATTERN.search('{"room_type": "normal double"}')
    assert MARKER_PATTERN.search('store_type=distraction, ') and MARKER_PATTERN.search("hotel_type: target\n")


@pytest.mark.parametrize("kind", sorted(FORMER_SKIP_TYPES))
def test_the_memory_reader_takes_no_evidence_from_skipped_records(kind):
    line = f'- [2025-03-01] [{kind}] {{"keyword": "durian cake"}}'
    assert PreferenceMemory(line).polarity("durian") is None
    assert PreferenceMemory(line.replace(f"[{kind}]", "[order]")).polarity("durian") == (1, "keyword: durian cake")


def _literal_strings(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Call) and node.args:  # frozenset({...}), tuple([...])
        return _literal_strings(node.args[0])
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def test_no_module_defines_its_own_copy():
    """A module-level collection holding two or more hidden keys, marker values or skip types is a copy."""
    vocabularies = {"hidden keys": HIDDEN_KEYS, "marker values": ANSWER_MARKER_VALUES, "skip types": SKIP_TYPES}
    copies = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == Path(vocabulary.__file__):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if value is None:
                continue
            strings = _literal_strings(value)
            for name, words in vocabularies.items():
                if len(strings & words) >= 2:
                    copies.append(f"{path.relative_to(PACKAGE)}:{node.lineno} defines {name}")
    assert not copies, copies
