"""``--vita-fail-under``'s grammar: the thresholds a run's metrics (or its LLM judge) must reach.

Grammar (entries separated by commas, whitespace ignored, metric names case-insensitive)::

    [MEMORY ":"] [LEVEL "."] METRIC "=" VALUE
    METRIC = "avg" | "avg@" K | "pass@" K | "pass^" K        K = a whole number, or the letter k

e.g. ``avg@4=0.40,pass^4=0.20``, ``user.pass@4=0.1``, ``full_context:avg=0.5``, ``pass^k=0.2``. LEVEL is
``subtask`` (default) or ``user``; without MEMORY every backend in the run must meet the threshold.
``judge.agreement=0.9`` and ``judge.kappa=0.8`` gate on the LLM judge instead.

Standard library only: the settings check a value with it when they read it. How a threshold is checked
against a run is :mod:`pytest_vitabench.report.thresholds`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..formulas import METRICS, metric_key

#: The metric levels (:data:`pytest_vitabench.metrics.LEVELS`).
LEVELS = ("subtask", "user")
#: A metric as ``--vita-fail-under`` names it: a declared prefix and K, or the bare name of a K-free metric.
_METRIC = re.compile(r"^(?:(" + "|".join(re.escape(m.prefix) for m in METRICS) + r")(\d+|k)|("
                     + "|".join(re.escape(m.name) for m in METRICS if not m.needs_k) + "))$", re.IGNORECASE)
_FAMILY = {**{m.prefix: m.name for m in METRICS}, **{m.name: m.name for m in METRICS if not m.needs_k}}
_NAMES = [*(m.name for m in METRICS if not m.needs_k), *(m.key("K") for m in METRICS)]
_METRIC_HELP = f"{', '.join(_NAMES[:-1])} or {_NAMES[-1]}"
#: ``judge.FIGURE`` thresholds: the agreement figures a higher value of which is better.
JUDGE_FIGURES = ("agreement", "kappa")


@dataclass(frozen=True)
class Threshold:
    """One minimum a metric must reach.

    Attributes:
        metric: ``avg``, ``pass`` or ``pass^``.
        k: The K the threshold is stated for; ``None`` for "the run's k" (written ``k``, or a bare ``avg``).
        value: The minimum, in [0, 1].
        level: ``subtask``, ``user``, or ``judge`` (``metric`` is then one of :data:`JUDGE_FIGURES`).
        memory: The backend it applies to, or ``None`` for every backend in the run.
    """

    metric: str
    k: int | None
    value: float
    level: str = "subtask"
    memory: str | None = None

    @property
    def key(self) -> str:
        """The metric as written, e.g. ``pass^4``, ``pass^k`` or ``judge.kappa``."""
        if self.level == "judge":
            return f"judge.{self.metric}"
        return metric_key(self.metric, "k" if self.k is None else self.k)

    def __str__(self) -> str:
        prefix = f"{self.memory}:" if self.memory is not None else ""
        level = "user." if self.level == "user" else ""  # judge. is part of the key
        return f"{prefix}{level}{self.key}={self.value:g}"


def _parse_one(entry: str) -> Threshold:
    lhs, sep, rhs = entry.partition("=")
    if not sep:
        raise ValueError(f"--vita-fail-under entry {entry!r} has no '=': write it like 'avg@4=0.40'")
    lhs, rhs = lhs.strip(), rhs.strip()
    # rpartition: the metric part never holds ':', while a 'module:Class' backend name may.
    before_colon, colon, rest = lhs.rpartition(":")
    memory = before_colon.strip() if colon else None
    if colon and not memory:
        raise ValueError(f"--vita-fail-under entry {entry!r} has an empty memory backend before ':'")
    rest = rest.strip()
    level = "subtask"
    if rest.lower().startswith("judge."):
        return _parse_judge(entry, rest[len("judge."):].strip().lower(), rhs, memory)
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
                         f"(use {_METRIC_HELP} with K a whole number or the letter k)")
    family = (match.group(1) or match.group(3)).lower()
    k_text = (match.group(2) or "k").lower()
    k = None if k_text == "k" else int(k_text)
    if k is not None and k < 1:
        raise ValueError(f"--vita-fail-under entry {entry!r}: K must be at least 1")
    return Threshold(metric=_FAMILY[family], k=k, value=_value(entry, rhs), level=level, memory=memory)


def _value(entry: str, rhs: str, low: float = 0.0) -> float:
    """The threshold ``rhs``, a number in ``[low, 1]``."""
    try:
        value = float(rhs)
    except ValueError:
        raise ValueError(f"--vita-fail-under entry {entry!r}: {rhs!r} is not a number") from None
    if not (math.isfinite(value) and low <= value <= 1.0):
        raise ValueError(f"--vita-fail-under entry {entry!r}: {rhs} is outside [{low:g}, 1]")
    return value


def _parse_judge(entry: str, figure: str, rhs: str, memory: str | None) -> Threshold:
    if figure not in JUDGE_FIGURES:
        raise ValueError(f"--vita-fail-under entry {entry!r}: unknown judge figure {figure!r} "
                         f"(use judge.{' or judge.'.join(JUDGE_FIGURES)})")
    value = _value(entry, rhs, low=-1.0 if figure == "kappa" else 0.0)  # kappa can be negative: worse than chance
    return Threshold(metric=figure, k=None, value=value, level="judge", memory=memory)


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
