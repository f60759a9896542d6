"""The generator's vocabulary keeps every decision well defined for any reader of the text.

A word that means one thing in one preference and another elsewhere would let evidence about one
decision spill into another; these rules keep the suite's difficulty in its noise, not in its wording.
"""

from __future__ import annotations

from collections import defaultdict

from pytest_vitabench.agents.candidates import candidate_phrase
from pytest_vitabench.synth.catalog import AIRLINE_NAMES, AXES, BACKGROUND, FAMILIES, NAME_PREFIXES, POPULAR_TAGS
from pytest_vitabench.synth.plan import Pref, Version
from pytest_vitabench.text.preferences import PreferenceMemory
from pytest_vitabench.text.words import tokenize

#: Generic words several axes may share: they never decide between two options of one subtask.
SHARED_WORDS = {"business", "class", "fruit", "full", "room", "package", "airline"}


def _contains(tokens: list[str], part: list[str]) -> bool:
    n = len(part)
    return any(tokens[i:i + n] == part for i in range(len(tokens) - n + 1))


def test_no_value_contains_another_axis_value():
    values = [(axis.key, axis.alternative_of, v, tokenize(v)) for axis in AXES for v in axis.values]
    for key, alt, value, tokens in values:
        for other_key, other_alt, other, other_tokens in values:
            if value == other or key == other_key and value.startswith("non-"):
                continue
            related = key == other_key or alt == other_key or other_alt == key
            if not related:
                assert not _contains(tokens, other_tokens), f"{key}:{value!r} contains {other_key}:{other!r}"


def test_words_of_values_belong_to_one_axis_and_never_to_a_name():
    owners = defaultdict(set)
    for axis in AXES:
        for value in axis.values:
            for word in tokenize(value):
                if len(word) > 3:
                    owners[word].add(axis.alternative_of or axis.key)
    shared = {w for w, keys in owners.items() if len(keys) > 1}
    assert shared <= SHARED_WORDS, sorted(shared - SHARED_WORDS)
    names = set()
    for family in FAMILIES:
        for part in family.suffixes + family.items:
            names |= set(tokenize(part)) - set(tokenize(family.noun))
    for part in NAME_PREFIXES + AIRLINE_NAMES + POPULAR_TAGS:
        names |= set(tokenize(part))
    clashes = {w for w in owners if w in names} - SHARED_WORDS
    assert not clashes, sorted(clashes)


def test_background_preferences_mention_no_value():
    values = [tokenize(v) for axis in AXES for v in axis.values]
    for phrases in BACKGROUND.values():
        for phrase in phrases:
            tokens = tokenize(phrase)
            assert not any(_contains(tokens, v) for v in values), phrase


def test_every_ground_truth_tag_reads_with_its_meaning():
    """A literal reader of the tag sees the liked value as liked and the avoided one as avoided."""
    for axis in AXES:
        for value in axis.values:
            pref = Pref("P01", axis.category, axis.kind, axis.key, cond=(axis.conditions or ("",))[0],
                        detail="a habit from Chengdu", versions=[Version(None, value)])  # type: ignore[arg-type]
            tag = pref.tag(value)
            sign, core = candidate_phrase(value)  # how a candidate carrying the value is read
            reading = PreferenceMemory(f"  - {tag}").polarity(core)
            assert reading is not None, (axis.key, tag)
            expected = -1 if axis.kind == "aversion" else 1
            assert sign * reading[0] == expected, (axis.key, tag, reading)
