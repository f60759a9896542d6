"""Reading ``--vita-*`` values: every bad value is a ``ValueError`` naming the option and what it accepts.

Standard library only, with the small vocabularies the parsers check against: the settings import it to
register the options in every pytest session, and the feature modules import these names from here.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from .fail_under import parse_fail_under
from .model_args import parse_model_args
from .spelling import did_you_mean

Choice = TypeVar("Choice", bound=str)
_Number = TypeVar("_Number", int, float)

#: Offline built-in names per role option; any other name is a model at an OpenAI-compatible endpoint.
BUILTIN_ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "--vita-model": ("reference", "literal", "groundtruth-reader", "answer", "oracle"),
    "--vita-user-model": ("scripted",),
    "--vita-judge-model": ("rules",),
}

#: ``--vita-deviation judge-failures``: ``unscored`` (ours) leaves an item whose reward hangs on a verdict the judge
#: failed to return out of the metrics; ``zero`` (the official harness) scores such a verdict unmet.
JUDGE_FAILURE_POLICIES = ("unscored", "zero")

#: Tool checks we add over the official tools (``--vita-deviation tool-checks``): name -> what it refuses.
TOOL_CHECKS: dict[str, str] = {
    "stock": "delivery and in-store orders beyond the catalogue's stock",
    "past_dates": "in-store reservations and bookings in the past, travel tickets for past dates",
    "single_store": "a delivery order whose products are not all from the store named in the call",
    "attributes": "a delivery order whose attributes list is not one entry per product",
    "argument_types": "arguments of the wrong JSON type (the official tools take what the model sends)",
    "reservation": "reservations at a shop whose enable_reservation is false",
    "finished_orders": "cancelling a delivered delivery order or a consumed in-store order, booking or "
                       "reservation; changing the note of a cancelled or delivered delivery order",
    "empty_orders": "a delivery order without products",
}

#: ``--vita-deviation tool-checks`` values that turn every check off: the official tools' behaviour.
NO_TOOL_CHECKS = frozenset({"official", "none", ""})

#: The official harness's names of memory backends, accepted as aliases (its null and rewrite are our none and agentic).
ALIASES = {"null": "none", "rewrite": "agentic"}

#: What :mod:`.user_code` calls a ``--vita-memory module:SPEC`` (its messages; the registry's lookups).
MEMORY_CODE_KIND = "memory backend"

#: Seconds between progress lines (``--vita-progress auto``): on a terminal, and when the output goes to a
#: file or CI log.
TTY_INTERVAL_S = 10.0
LOG_INTERVAL_S = 60.0


def _number(option: str, value: object, what: str, kind: Callable[[str], _Number]) -> _Number:
    """``value`` read by ``kind`` (``float``, ``int``); else an error saying what ``option`` must be."""
    try:
        return kind(str(value))
    except ValueError:
        raise ValueError(f"{option} must be {what}, got {value!r}") from None


def whole_number(option: str, value: object, *, minimum: int, default: int, accepted: str = "") -> int:
    """``value`` as an int of at least ``minimum``; ``None`` or blank gives ``default``. ``accepted`` names what
    else the option takes (e.g. `` or 'auto'``), for the message."""
    if value is None or str(value).strip() == "":
        return default
    text = str(value).strip()
    number = _number(option, text, f"a whole number >= {minimum}{accepted}", int)
    if number < minimum:
        raise ValueError(f"{option} must be a whole number >= {minimum}{accepted}, got {number}")
    return number


def one_of(option: str, value: object, choices: Iterable[Choice]) -> Choice:
    """``value`` when it is one of ``choices``, else an error naming the closest one."""
    allowed = list(choices)
    text = str(value).strip()
    for choice in allowed:  # the choice itself, typed as the caller's choices (a Literal, say)
        if choice == text:
            return choice
    raise ValueError(f"{option} must be one of {', '.join(allowed)}; got {text!r}{did_you_mean(text, allowed)}")


def unknown_model_hint(roles: Iterable[tuple[str, str]]) -> str:
    """A sentence for each role name that misspells a built-in, e.g. for ``("--vita-model", "refrence")``
    (``""`` when no name is a near miss: a name far from every built-in is a model at an endpoint)."""
    hints = []
    for option, name in roles:
        builtins = BUILTIN_ROLE_NAMES.get(option, ())
        close = [] if name in builtins else difflib.get_close_matches(name.strip().lower(), builtins, n=1, cutoff=0.75)
        if close:
            hints.append(f"unknown model {name!r} for {option}: not a built-in ({', '.join(builtins)}); did you mean "
                         f"{close[0]!r}? Any other name is taken as a model at an OpenAI-compatible endpoint.")
    return " ".join(hints)


# The settings' parsers: ``(option, raw value) -> value``.

def boolean(option: str, value: object) -> bool:
    """An on/off option: ``True`` from the command line, a bool or ``true/false/on/off/1/0`` from an ini file."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0", ""):
        return False
    raise ValueError(f"{option} must be true or false, got {value!r}")


def limit(option: str, value: object) -> int:
    """A positive limit; empty, ``0``, ``none`` and ``unlimited`` mean unlimited (``0``)."""
    if value is None or str(value).strip().lower() in ("", "0", "none", "unlimited"):
        return 0
    number = _number(option, value, "a whole number (0 for unlimited)", int)
    if number < 0:
        raise ValueError(f"{option} must not be negative, got {value!r}")
    return number


_TOKEN_SUFFIXES = {"k": 1_000, "m": 1_000_000}


def token_limit(option: str, value: object) -> int:
    """A positive number of tokens, with an optional ``k`` / ``M`` suffix (``30k``, ``2M``); empty, ``0``,
    ``none`` and ``unlimited`` mean unlimited (``0``)."""
    text = "" if value is None else str(value).strip().lower().replace("_", "")
    if text in ("", "0", "none", "unlimited"):
        return 0
    scale = _TOKEN_SUFFIXES.get(text[-1], 1)
    number_text = text[:-1] if scale != 1 else text
    try:
        number = float(number_text)
    except ValueError:
        raise ValueError(f"{option} must be a number of tokens such as 30000, 30k or 2M (0 for unlimited), "
                         f"got {value!r}") from None
    if number < 0 or number * scale != int(number * scale):
        raise ValueError(f"{option} must be a whole, non-negative number of tokens, got {value!r}")
    return int(number * scale)


def seconds(option: str, value: object) -> float:
    """A positive number of seconds."""
    number = _number(option, value, "a number of seconds", float)
    if number <= 0:
        raise ValueError(f"{option} must be positive, got {value!r}")
    return number


def cache_mode(option: str, value: object) -> str:
    return one_of(option, str(value).strip().lower(), ("all", "judge", "off"))


def concurrency(option: str, value: object) -> int | str:
    """``auto`` as it is, else a whole number of at least 1 (the message says ``auto`` is accepted too)."""
    if str(value).strip().lower() == "auto":
        return "auto"
    return whole_number(option, value, minimum=1, default=1, accepted=" or 'auto'")


def switch(option: str, value: object, choices: tuple[str, ...] = ("default", "official")) -> str:
    """One of ``choices``, case-insensitive (a deviation switch, ``--vita-profile``)."""
    text = str(value).strip().lower()
    if text not in choices:
        raise ValueError(f"{option} must be one of {', '.join(choices)}, got {value!r}")
    return text


def judge_failures(option: str, value: object) -> str:
    return switch(option, value, JUDGE_FAILURE_POLICIES)


def _path_or_auto(option: str, value: object, what: str) -> str:
    # the path is checked when the run starts, where a missing one is named
    text = str(value).strip()
    if not text:
        raise ValueError(f"{option} must be {what}, auto or none, got {value!r}")
    return text.lower() if text.lower() in ("auto", "none") else text


def official_source(option: str, value: object) -> str:
    return _path_or_auto(option, value, "a directory")


def on_off(option: str, value: object) -> bool:
    """``on``/``off`` (or a bool, ``true``/``false``, ``yes``/``no``, ``1``/``0``); blank is no value."""
    with contextlib.suppress(ValueError):
        if str(value).strip():
            return boolean(option, value)
    raise ValueError(f"{option} must be on or off, got {value!r}")


def tool_checks(option: str, value: object) -> list[str]:
    """``all`` (every check), ``official``/``none`` (none), or a comma-separated list of :data:`TOOL_CHECKS`."""
    if isinstance(value, (list, tuple)):
        names = [str(v) for v in value]
    else:
        text = str(value).strip().lower()
        if text == "all":
            return list(TOOL_CHECKS)
        if text in NO_TOOL_CHECKS:
            return []
        names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in TOOL_CHECKS]
    if unknown:
        raise ValueError(f"{option}: unknown check(s) {', '.join(unknown)}; known: "
                         f"{', '.join(TOOL_CHECKS)}, or all / official")
    return [n for n in TOOL_CHECKS if n in names]


def memory_list(option: str, value: object) -> list[str]:
    """Split ``none,full_context`` into de-duplicated names (order kept), official aliases resolved
    (:data:`ALIASES`), and each ``module:SPEC`` named by the name its spec declares (``recent``), as ids and
    reports show it; the memory registry finds the spec by that name."""
    names: list[str] = []
    loaded: dict[str, str] = {}
    for part in (part.strip() for part in str(value).split(",")):
        name = ALIASES.get(part, part)
        if ":" in name:
            from . import user_code  # here: registering the options imports only what their parsers need first

            try:
                name = user_code.declared_name(name, what=MEMORY_CODE_KIND)
            except ValueError as exc:
                raise ValueError(f"{option}: {exc}") from None
            if loaded.get(name, part) != part:
                raise ValueError(f"{option}: {loaded[name]!r} and {part!r} both declare the name {name!r}")
            loaded[name] = part
        if name and name not in names:
            names.append(name)
    if not names:
        raise ValueError(f"{option} needs at least one backend name")
    return names


def rag_threshold(option: str, value: object) -> float | None:
    """A number in [-1, 1], or ``None`` (``auto``/empty: the embedding model's calibrated value)."""
    if value is None or str(value).strip().lower() in ("", "auto", "none"):
        return None
    number = _number(option, value, "a number or 'auto'", float)
    if not -1.0 <= number <= 1.0:
        raise ValueError(f"{option} must lie in [-1, 1] (a cosine similarity), got {value!r}")
    return number


def model_args(option: str, value: object) -> dict[str, object]:
    return parse_model_args(value, option)


def official_models(option: str, value: object) -> str:
    return _path_or_auto(option, value, "a models.yaml file")


def fail_under(option: str, value: object) -> str:
    """The thresholds as given, once they parse."""
    parse_fail_under(str(value))
    return str(value)


def regression_drop(option: str, value: object) -> float:
    """A drop of Avg in [0, 1] (that it needs ``--vita-baseline`` is checked with the other settings)."""
    number = _number(option, value, "a number such as 0.02", float)
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"{option} must be between 0 and 1 (a drop of Avg), got {number}")
    return number


@dataclass(frozen=True)
class EarlyStop:
    """``--vita-early-stop``: ``off``, ``exact`` (stop once no outcome of the items not run could change the
    gate's verdict) or ``statistical`` with ``alpha`` (stop once a confidence sequence puts every threshold's
    figure on one side, wrong with probability at most ``alpha``)."""

    kind: str = "off"
    alpha: float | None = None

    def __str__(self) -> str:
        return f"alpha={self.alpha:g}" if self.kind == "statistical" else self.kind


def parse_early_stop(spec: object) -> EarlyStop:
    """Read an ``--vita-early-stop`` value: ``off`` (or blank), ``exact``, or ``alpha=A`` with A in (0, 0.5].

    Raises:
        ValueError: On anything else, saying what the option accepts.
    """
    text = str(spec).strip().lower().replace(" ", "")
    if text in ("", "off", "none", "no"):
        return EarlyStop()
    if text == "exact":
        return EarlyStop("exact")
    key, sep, rest = text.partition("=")
    if key == "alpha" and sep:
        try:
            alpha = float(rest)
        except ValueError:
            alpha = math.nan
        if 0.0 < alpha <= 0.5:
            return EarlyStop("statistical", alpha)
        raise ValueError(f"--vita-early-stop alpha must be a number in (0, 0.5], got {rest!r}")
    raise ValueError(f"--vita-early-stop takes off, exact or alpha=A (e.g. alpha=0.05), got {spec!r}")


def early_stop(option: str, value: object) -> EarlyStop:
    """``--vita-early-stop``'s value (:func:`parse_early_stop`), the error naming ``option``."""
    try:
        return parse_early_stop(value)
    except ValueError as exc:
        raise ValueError(str(exc).replace("--vita-early-stop", option, 1)) from None


def early_stop_spec(option: str, value: object) -> str:
    """``--vita-early-stop``'s value as it is recorded: ``off``, ``exact`` or ``alpha=A``."""
    return str(early_stop(option, value))


def budget_usd(option: str, value: object) -> float | None:
    """A spend cap in USD above 0; empty: none (an ini file's ``vita_budget_usd =`` leaves it unset)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    number = _number(option, str(value).strip().lstrip("$"), "an amount of USD such as 25 or 2.50", float)
    if not number > 0 or number == float("inf"):
        raise ValueError(f"{option} must be an amount of USD above 0, got {value}")
    return number


def parse_interval(value: object, *, tty: bool) -> float | None:
    """``--vita-progress`` in seconds (``auto``: 10 on a terminal, 60 otherwise), ``None`` when off (``0``/``off``)."""
    text = str(value if value is not None else "auto").strip().lower()
    if text in ("", "auto"):
        return TTY_INTERVAL_S if tty else LOG_INTERVAL_S
    if text in ("off", "no", "false"):
        return None
    seconds = _number("--vita-progress", value, "auto, off or a number of seconds", float)
    if seconds < 0:
        raise ValueError(f"--vita-progress must be auto, off or a number of seconds >= 0, got {value!r}")
    return seconds or None


def progress(option: str, value: object) -> str:
    """``auto``, ``off`` or seconds, as given once it parses (the interval depends on the terminal)."""
    parse_interval(value, tty=False)
    return str(value).strip()


def resume(option: str, value: object) -> str | None:
    """``latest`` for true/yes/on/1, ``None`` for false/no/off/0, else a run directory or id."""
    text = str(value).strip()
    if not text or text.lower() in ("false", "no", "0", "off"):
        return None
    return "latest" if text.lower() in ("true", "yes", "1", "on") else text


_SHARD = re.compile(r"^(?:(?P<index>\d+)|auto)(?:/(?P<count>\d+))?$")


def shard(option: str, value: object) -> str:
    """``off``, ``auto``, ``auto/N`` or ``I/N`` with ``1 <= I <= N`` (the job runner's variables are read later)."""
    text = str(value).strip().lower()
    if text in ("off", "none", "no", "false", "0"):
        return "off"
    match = _SHARD.match(text)
    if match is None or (match["index"] is not None and match["count"] is None):
        raise ValueError(f"{option} must be I/N (this is shard I of N, 1-based, e.g. 2/4), auto (from "
                         f"SLURM_ARRAY_TASK_ID/COUNT), auto/N (the index from JOB_COMPLETION_INDEX or Slurm) or off; "
                         f"got {value!r}")
    count = int(match["count"]) if match["count"] is not None else None
    if count is not None and count < 1:
        raise ValueError(f"{option}: the number of shards must be at least 1, got {value!r}")
    if match["index"] is not None and count is not None and not 1 <= int(match["index"]) <= count:
        raise ValueError(f"{option}: shard {match['index']} of {count} is outside 1..{count} (shards count from 1)")
    return text


_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def run_id(option: str, value: object) -> str | None:
    """A run directory's name: letters, digits, ``.``, ``_`` and ``-`` (it becomes a path component)."""
    text = str(value).strip()
    if not text:
        return None
    if not _RUN_ID.match(text) or text.startswith("shard-"):
        raise ValueError(f"{option} must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit "
                         f"and not with 'shard-' (it names a directory under .vitabench/runs/); got {text!r}")
    return text


def limits_url(option: str, value: object) -> str | None:
    """A Redis URL (``redis://``, ``rediss://`` or ``unix://``); blank for none."""
    text = str(value).strip()
    if not text:
        return None
    if not text.startswith(("redis://", "rediss://", "unix://")):
        shown = text.split("@")[-1]  # never echo a password
        raise ValueError(f"{option} must be a Redis URL (redis://host:port/db, rediss://... or unix://...), "
                         f"got {shown!r}")
    return text
