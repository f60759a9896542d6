"""Near-miss suggestions for mistyped names in error messages (a leaf module: anything may import it)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for a near miss of one of ``choices``, else ``""``."""
    close = difflib.get_close_matches(name.strip().lower(), list(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""
