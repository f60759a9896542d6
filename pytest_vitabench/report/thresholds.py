"""``--vita-fail-under``: parse metric thresholds and check a run's metrics against them.

Grammar (entries separated by commas, whitespace ignored, metric names case-insensitive)::

    [MEMORY ":"] [LEVEL "."] METRIC "@" K "=" VALUE        METRIC in avg, pass    (also METRIC "^" K)

e.g. ``avg@4=0.40,pass^4=0.20``, ``user.pass@4=0.1``, ``full_context:avg@4=0.5``. LEVEL is ``subtask``
(default) or ``user``; without MEMORY every backend in the run must meet the threshold.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ..metrics import LEVELS, metric_key

_METRIC = re.compile(r"^(avg@|pass@|pass\^)(\d+)$", re.IGNORECASE)
_FAMILY = {"avg@": "avg", "pass@": "pass", "pass^": "pass^"}
# Metrics are means of floats; without a little slack a run scoring exactly the threshold could fail on
# the last bit of a sum.
_EPS = 1e-9


@dataclass(frozen=True)
class Threshold:
    """One minimum a metric must reach.

    Attributes:
        metric: ``avg``, ``pass`` or ``pass^``.
        k: The K the threshold is stated for.
        value: The minimum, in [0, 1].
        level: ``subtask`` or ``user``.
        memory: The backend it applies to, or ``None`` for every backend in the run.
    """

    metric: str
    k: int
    value: float
    level: str = "subtask"
    memory: str | None = None

    @property
    def key(self) -> str:
        """The metric's key in a level of the metrics dict, e.g. ``pass^4``."""
        return metric_key(self.metric, self.k)

    def __str__(self) -> str:
        prefix = f"{self.memory}:" if self.memory is not None else ""
        level = "user." if self.level == "user" else ""
        return f"{prefix}{level}{self.key}={self.value:g}"


def _parse_one(entry: str) -> Threshold:
    lhs, sep, rhs = entry.partition("=")
    if not sep:
        raise ValueError(f"--vita-fail-under entry {entry!r} has no '=': write it like 'avg@4=0.40'")
    lhs, rhs = lhs.strip(), rhs.strip()
    # rpartition: the metric part never holds ':', while a 'module:Class' backend name may.
    memory, colon, rest = lhs.rpartition(":")
    memory = memory.strip() if colon else None
    if colon and not memory:
        raise ValueError(f"--vita-fail-under entry {entry!r} has an empty memory backend before ':'")
    rest = rest.strip()
    level = "subtask"
    if "." in rest:
        level, _, rest = rest.partition(".")
        level = level.strip().lower()
        rest = rest.strip()
        if level not in LEVELS:
            raise ValueError(f"--vita-fail-under entry {entry!r}: unknown level {level!r} "
                             f"(use {' or '.join(LEVELS)})")
    match = _METRIC.match(rest)
    if not match:
        raise ValueError(f"--vita-fail-under entry {entry!r}: unknown metric {rest!r} "
                         "(use avg@K, pass@K or pass^K with K a whole number)")
    k = int(match.group(2))
    if k < 1:
        raise ValueError(f"--vita-fail-under entry {entry!r}: K must be at least 1")
    try:
        value = float(rhs)
    except ValueError:
        raise ValueError(f"--vita-fail-under entry {entry!r}: {rhs!r} is not a number") from None
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"--vita-fail-under entry {entry!r}: {rhs} is outside [0, 1]")
    return Threshold(metric=_FAMILY[match.group(1).lower()], k=k, value=value, level=level, memory=memory)


def parse_fail_under(spec: str) -> list[Threshold]:
    """Parse a ``--vita-fail-under`` value.

    Args:
        spec: Comma-separated entries such as ``avg@4=0.40,user.pass@4=0.1,full_context:pass^4=0.2``.
            A blank spec means no thresholds.

    Returns:
        The thresholds, in the order given.

    Raises:
        ValueError: On an entry without ``=``, an unknown level or metric, a value that is not a number
            or is outside [0, 1].
    """
    entries = [e.strip() for e in spec.split(",")]
    return [_parse_one(e) for e in entries if e]


def _fmt(value: float, other: float) -> str:
    text = f"{value:.3f}"
    # "0.400 < 0.400" would read as nonsense, so show the digits that make the difference visible.
    return text if text != f"{other:.3f}" else f"{value:.6g}"


def evaluate_thresholds(thresholds: list[Threshold], metrics: dict[str, Any]) -> list[str]:
    """Check metrics against thresholds.

    A threshold without a backend applies to every backend in the run. A threshold is also violated
    when it cannot be checked: it names a backend not in the run, a K other than the run's, a level
    without units, or the run has no metrics at all (a gate must not pass on an empty run).

    Args:
        thresholds: From :func:`parse_fail_under`.
        metrics: From :func:`pytest_vitabench.metrics.compute_metrics`.

    Returns:
        One message per violation, e.g. ``full_context subtask avg@4 = 0.312 < 0.400``; empty when all
        are met.
    """
    messages: list[str] = []
    for t in thresholds:
        if t.memory is not None:
            if t.memory not in metrics:
                run = ", ".join(sorted(metrics)) or "none"
                messages.append(f"threshold {t}: memory backend {t.memory!r} is not in this run "
                                f"(backends: {run})")
                continue
            memories = [t.memory]
        else:
            memories = sorted(metrics)
            if not memories:
                messages.append(f"threshold {t}: no results to check it against")
                continue
        for memory in memories:
            m = metrics[memory]
            if m["k"] != t.k:
                messages.append(f"threshold {t}: names k={t.k} but this run has k={m['k']} ({memory})")
                continue
            value = m[t.level].get(t.key)
            if value is None:
                messages.append(f"{memory} {t.level} {t.key} has no units to check (threshold {t})")
            elif value < t.value - _EPS:
                messages.append(f"{memory} {t.level} {t.key} = {_fmt(value, t.value)} < {t.value:.3f}")
    return messages
