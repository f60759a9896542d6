"""Statistical early stopping of a gate: a confidence sequence over users, sampled without replacement.

The run draws its users in a random order (:func:`pytest_vitabench.run.schedule.interleaved`, seeded). After
each user of that order whose items have all run, each threshold is tested on the metric's value over the
whole selection (the full run's figure, not a model's "true" rate): a bet against "the full run's value is
below the threshold" and one against "it is at or above it". A bet's capital is a nonnegative supermartingale
under its hypothesis, so by Ville's inequality it reaches ``1 / alpha`` with probability at most ``alpha``
however long the run looks (anytime-valid): stopping when it does is wrong with at most that probability.

The bets are Waudby-Smith and Ramdas's (Estimating means of bounded random variables by betting, JRSS-B 2024;
Confidence sequences for sampling without replacement, NeurIPS 2020): the predictable plug-in bet, against the
mean of the users *not yet seen* that the hypothesis implies (the finite-population correction). A user's
share of the metric is its units' sum, scaled by the most units any user has, so every share is in [0, 1].

``alpha`` is split evenly over the thresholds the run tests (Bonferroni), so the whole verdict is wrong with
probability at most ``alpha``. Standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: The largest bet, as a share of what the capital could lose on one user (Waudby-Smith and Ramdas's c).
MAX_BET = 0.5
_SLACK = 1e-9


def _bets(xs: Sequence[float], population: int, m: float, alpha: float, *, above: bool) -> int | None:
    """How many of ``xs`` (the shares in draw order) it takes for the bet against "mean <= m" (``above``) or
    "mean >= m" to reach ``1 / alpha``; ``None`` if it never does. A mean the draws already rule out (the rest
    of the population could not bring it to ``m``) counts as reached.
    """
    if not xs:
        return None
    target = math.log(1 / alpha)
    log_capital = 0.0
    seen = 0.0
    spread = 0.25  # the draws' spread around their running mean, with a prior of 1/4: the plug-in's variance
    for t, x in enumerate(xs, start=1):
        # What the unseen users' mean must be for the population's to be m.
        mu = (population * m - seen) / (population - t + 1)
        # Sums of floats drift: a mean the rest "cannot" reach by 1e-15 is rounding, not evidence.
        if above and mu < -_SLACK or not above and mu > 1 + _SLACK:
            return t - 1
        mu = min(1.0, max(0.0, mu))
        room = mu if above else 1 - mu  # what one user can take the capital down by, per unit bet
        if room <= _SLACK:
            edge = 0.0  # the hypothesis leaves the rest no freedom: the next check above settles it, or nothing does
        else:
            variance = spread / t  # over the t - 1 draws before this one and the prior
            plug_in = math.sqrt(2 * math.log(1 / alpha) / (variance * t * math.log(1 + t)))
            edge = min(plug_in, MAX_BET / room)
        step = edge * (x - mu) if above else -edge * (x - mu)
        log_capital += math.log1p(step)
        if log_capital >= target:
            return t
        seen += x
        mean_hat = (0.5 + seen) / (t + 1)
        spread += (x - mean_hat) ** 2
    if len(xs) < population:  # the check above, after the last draw
        mu = (population * m - seen) / (population - len(xs))
        if above and mu < -_SLACK or not above and mu > 1 + _SLACK:
            return len(xs)
    return None


def decided_at(xs: Sequence[float], population: int, m: float, alpha: float) -> tuple[int, bool] | None:
    """When the draws ``xs`` settle on which side of ``m`` the population mean lies.

    Args:
        xs: Each drawn user's share, in [0, 1], in draw order (without replacement).
        population: The number of users in the selection (at least ``len(xs)``).
        m: The share a mean at the threshold corresponds to (a mean ``>= m`` meets it).
        alpha: The chance of a wrong side this test may take.

    Returns:
        ``(draws, at_or_above)`` at the first draw count where a bet reaches ``1 / alpha`` (``at_or_above``:
        the mean is ``>= m``), or ``None``.
    """
    if len(xs) > population:
        raise ValueError(f"{len(xs)} draws from a population of {population}")
    above = _bets(xs, population, m, alpha, above=True)
    below = _bets(xs, population, m, alpha, above=False)
    # Both cannot be right; the earlier one decided first (they never meet on one draw unless alpha > 1/2).
    if above is not None and (below is None or above <= below):
        return above, True
    if below is not None:
        return below, False
    if len(xs) == population:  # every user seen: the mean is known (at exactly m, no bet can win)
        return population, math.fsum(xs) / population >= m
    return None
