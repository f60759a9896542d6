"""Words of English request and history text: normalising, stemming, tokenising, content words.

The lowest layer of the text facts (:mod:`pytest_vitabench.text`): the built-in agents, the scripted user
and the memory reader all see words through these functions, so they agree on what a word is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

STOPWORDS = frozenset("""
a an the me my mine i i'm im we us our you your it its this that these those some any something anything
somewhere someone please pls kindly thanks thank hi hello hey just also too very really quite so
for to at in on of and or with from by about into onto up down out over under as is are am be been was were
do does did can could would should will shall may might must need needs want wants wanted like would'd
get got order book buy find reserve reservation make help arrange grab give bring send deliver delivery
one some few couple bit little lot lots good nice great best better quick quickly now soon asap
today tonight tomorrow morning afternoon evening night noon weekend weekday day days week time
monday tuesday wednesday thursday friday saturday sunday
january february march april may june july august september october november december
office home work school lab campus company department workplace place house
trip family friends friend team client clients colleague colleagues parents wife husband kids son daughter
there here what which who when where how why if then than not no yes ok okay sure
usual usually again another other same new
""".split())


_CANNOT = re.compile(r"\bcan't\b")
_WONT = re.compile(r"\bwon't\b")
_NOT = re.compile(r"n't\b")


def normalize(text: str) -> str:
    """Lower-case and expand contractions, so ``can't`` reads as ``can not``."""
    text = str(text).lower().replace("’", "'")
    if "'" not in text:  # every contraction has one; most history text has none
        return text
    text = _CANNOT.sub("can not", text)
    text = _WONT.sub("will not", text)
    return _NOT.sub(" not", text)


def stem(word: str) -> str:
    """A tiny plural stemmer: ``rooms`` -> ``room``, ``dishes`` -> ``dish``, ``berries`` -> ``berry``."""
    if not word.endswith("s"):  # most words; every rule below strips an "s"
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


def tokenize(text: str) -> list[str]:
    """Normalised, stemmed word tokens (letters and digits; ``non-smoking`` -> ``non``, ``smoking``)."""
    return list(map(stem, _WORD.findall(normalize(text))))


def token_tuple(text: str) -> tuple[str, ...]:
    """:func:`tokenize` as a tuple (clauses and phrases are keys and stay immutable)."""
    return tuple(map(stem, _WORD.findall(normalize(text))))


_RAW_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")


def content_words(text: str) -> list[str]:
    """The request's content words (stemmed, deduplicated, in order): what a search should look for."""
    out: list[str] = []
    for raw in _RAW_WORD.findall(normalize(text)):
        for part in raw.split("-"):
            part = part.strip("'")
            if part.endswith("'s"):
                part = part[:-2]
            word = stem(part)
            if len(word) < 2 or part in STOPWORDS or word in STOPWORDS or word.isdigit():
                continue
            if word not in out:
                out.append(word)
    return out


def find_phrase(tokens: Sequence[str], phrase: Sequence[str]) -> list[int]:
    """Every start index of ``phrase`` (a token sequence) in ``tokens``."""
    phrase = tuple(phrase)
    n = len(phrase)
    return [i for i in range(len(tokens) - n + 1) if tuple(tokens[i:i + n]) == phrase] if n else []
