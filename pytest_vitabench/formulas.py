"""The metric formulas (VitaBench 2.0's Pass@k and Pass^k) and the metric families, declared once.

Standard library only: the option parsers (``--vita-fail-under``) read the declarations when pytest starts,
before anything heavy is imported. Aggregating a run's results is :mod:`pytest_vitabench.metrics`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass


def is_success(reward: float) -> bool:
    """Whether a reward counts as a success: only a perfect 1.0 does (VitaBench 2.0's binary reward)."""
    return reward == 1.0


def _check_counts(n: int, c: int, k: int) -> None:
    if n < 0 or c < 0:
        raise ValueError(f"trial and success counts must be non-negative, got n={n}, c={c}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got k={k}")


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Pass^k: the probability that k trials drawn without replacement from n all succeed.

    ``C(c, k) / C(n, k)``, computed from exact integers.

    Args:
        n: Trials observed.
        c: Successful trials among them.
        k: Trials drawn.

    Raises:
        ValueError: If ``n < k`` (as VitaBench 2.0 does), if ``c > n`` (its formula would
            return a "probability" above 1), or on negative counts or ``k < 1``.
    """
    _check_counts(n, c, k)
    if n < k:
        raise ValueError(f"pass^k needs at least k trials: n={n} < k={k}")
    if c > n:
        raise ValueError(f"more successes than trials: c={c} > n={n}")
    return math.comb(c, k) / math.comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Pass@k: the probability that at least one of k trials drawn from n succeeds.

    ``1 - C(n - c, k) / C(n, k)``, with VitaBench 2.0's edge cases: 0 when ``n < k`` or ``c > n``, 1 when
    ``n - c < k``.

    Args:
        n: Trials observed.
        c: Successful trials among them.
        k: Trials drawn.

    Raises:
        ValueError: On negative counts or ``k < 1``.
    """
    _check_counts(n, c, k)
    if n < k or c > n:
        return 0.0
    if n - c < k:
        return 1.0
    total = math.comb(n, k)
    # One division of exact integers instead of 1 - x, which loses digits when x is close to 1.
    return (total - math.comb(n - c, k)) / total


@dataclass(frozen=True)
class Metric:
    """One metric family, declared once in :data:`METRICS`: the report's keys, the tables' columns, the
    ``--vita-fail-under`` names and the JUnit properties all iterate the declarations.

    Attributes:
        name: The family's name (``avg``, ``pass``, ``pass^``), as :class:`~.report.thresholds.Threshold` holds it.
        prefix: Its report key before K: ``avg@`` gives ``avg@4``.
        title: Its column header before K: ``Avg@`` gives ``Avg@4``.
        unit: One unit's value from its rewards (at least k of them), its successes c and k.
        needs_k: ``False`` for a mean reward, which does not depend on K: its bare name (``avg``) gates at any k.
    """

    name: str
    prefix: str
    title: str
    unit: Callable[[Sequence[float], int, int], float]
    needs_k: bool = True

    def key(self, k: int | str) -> str:
        """The report key at ``k`` (a number, or the letter ``k`` as ``--vita-fail-under`` writes it)."""
        return f"{self.prefix}{k}"

    def header(self, k: int | str) -> str:
        """The column header at ``k``."""
        return f"{self.title}{k}"


#: The metric families, in display order (a unit's values and a level's keys follow it).
METRICS = (
    Metric("avg", "avg@", "Avg@", lambda rewards, c, k: sum(rewards) / len(rewards), needs_k=False),
    Metric("pass", "pass@", "Pass@", lambda rewards, c, k: pass_at_k(len(rewards), c, k)),
    Metric("pass^", "pass^", "Pass^", lambda rewards, c, k: pass_hat_k(len(rewards), c, k)),
)
METRIC_NAMES = tuple(m.name for m in METRICS)
METRIC_BY_NAME = {m.name: m for m in METRICS}


def metric_key(name: str, k: int | str) -> str:
    """The report key of a metric family at ``k``: ``avg@4``, ``pass@4`` or ``pass^4``.

    Args:
        name: One of :data:`METRIC_NAMES`.
        k: The number of trials the metric is taken at.
    """
    return METRIC_BY_NAME[name].key(k)
