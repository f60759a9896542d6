"""Reading ``--vita-*`` values: every bad value is reported with the option's name and what it accepts.

Plain Python (no pytest): :class:`~pytest_vitabench.benchmark.Benchmark` and the CLI call these, and the
plugin turns the ``ValueError`` into a pytest usage error.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TypeVar

Choice = TypeVar("Choice", bound=str)

#: Offline built-in names per role option; any other name is a model at an OpenAI-compatible endpoint.
BUILTIN_ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "--vita-model": ("reference", "literal", "groundtruth-reader", "answer", "oracle"),
    "--vita-user-model": ("scripted",),
    "--vita-judge-model": ("rules",),
}


def whole_number(option: str, value: object, *, minimum: int, default: int) -> int:
    """``value`` as an int of at least ``minimum``; ``None`` or blank gives ``default``.

    Raises:
        ValueError: Not a whole number, or below ``minimum``; the message names ``option``.
    """
    if value is None or str(value).strip() == "":
        return default
    text = str(value).strip()
    try:
        number = int(text)
    except ValueError:
        raise ValueError(f"{option} must be a whole number >= {minimum}, got {text!r}") from None
    if number < minimum:
        raise ValueError(f"{option} must be a whole number >= {minimum}, got {number}")
    return number


def one_of(option: str, value: object, choices: Iterable[Choice]) -> Choice:
    """``value`` when it is one of ``choices``.

    Raises:
        ValueError: Naming ``option``, the accepted values and the closest one.
    """
    allowed = list(choices)
    text = str(value).strip()
    for choice in allowed:  # the choice itself, typed as the caller's choices (a Literal, say)
        if choice == text:
            return choice
    raise ValueError(f"{option} must be one of {', '.join(allowed)}; got {text!r}{did_you_mean(text, allowed)}")


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for a near miss of one of ``choices``, else ``""``."""
    close = difflib.get_close_matches(name.strip().lower(), list(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def near_builtin(option: str, name: str) -> str | None:
    """The built-in name that ``name`` most likely misspells, for a role option; ``None`` if none is close.

    Only near misses count: a name far from every built-in is taken for what it is, a model at an endpoint.
    """
    builtins = BUILTIN_ROLE_NAMES.get(option, ())
    if name in builtins:
        return None
    close = difflib.get_close_matches(name.strip().lower(), list(builtins), n=1, cutoff=0.75)
    return close[0] if close else None


def unknown_model_hint(roles: Iterable[tuple[str, str]]) -> str:
    """A sentence for each role name that misspells a built-in, e.g. for ``("--vita-model", "refrence")``.

    Returns:
        The sentences joined by spaces, or ``""`` when no name is a near miss.
    """
    hints = []
    for option, name in roles:
        builtin = near_builtin(option, name)
        if builtin is not None:
            builtins = ", ".join(BUILTIN_ROLE_NAMES[option])
            hints.append(f"unknown model {name!r} for {option}: not a built-in ({builtins}); did you mean "
                         f"{builtin!r}? Any other name is taken as a model at an OpenAI-compatible endpoint.")
    return " ".join(hints)
