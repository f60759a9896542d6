"""Detect a suite's language from its text, so prompts and the simulator speak the language of its rubrics.

The VitaBench 2.0 harness has one process-wide language switch (default Chinese) and mixes languages when it
does not match the data. We read the suite instead: Chinese when the user-facing text (instructions and
rubrics) holds more CJK characters than Latin words, else English.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .schema import UserTask

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
#: Enough subtasks to decide; reading all of a 33 MB suite would add nothing.
_SAMPLE = 200
#: Users validated to tell the language of a suite that is only indexed (lazy loading); their verdict is
#: cached with the index, see :func:`pytest_vitabench.suite.loader.load_suite`.
INDEXED_SAMPLE_USERS = 3


def text_language(texts: Iterable[str]) -> str | None:
    """``zh``, ``en``, or ``None`` when the texts hold no words at all."""
    cjk = latin = 0
    for text in texts:
        cjk += len(_CJK.findall(text))
        latin += len(_LATIN_WORD.findall(text))
    if cjk == 0 and latin == 0:
        return None
    return "zh" if cjk > latin else "en"


def detect_language(tasks: Iterable[UserTask], default: str = "en") -> str:
    """The language of a suite's instructions and rubrics (``default`` when they hold no words)."""
    texts: list[str] = []
    for sub in (sub for task in tasks for sub in task.subtasks):
        texts += [sub.instruction, *sub.rubrics()]
        if len(texts) > _SAMPLE * 4:
            break
    return text_language(texts) or default
