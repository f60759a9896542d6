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
probability at most ``alpha``. The bets (:func:`decided_at`) are plain arithmetic; :class:`StatisticalStop`
reads a run's results with the gate's own metrics.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..formulas import METRIC_BY_NAME, metric_key
from ..metrics import compute_metrics
from ..options.fail_under import Threshold
from ..result import ItemResult
from .early_stop import (
    Bound,
    Decision,
    Gates,
    GateVerdict,
    Pending,
    completed,
    exact_decision,
    passes,
    regression_bound,
)
from .thresholds import _EPS

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


# -- a run's gate ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Test:
    """One threshold on one backend, as the statistical decision tests it: each user's units' sum and count."""

    threshold: Threshold
    memory: str
    shares: dict[Any, tuple[float, int]]  # user -> (sum of its units' values, its units), for finished users
    units: dict[Any, int]  # user -> its units in the selection (every user with any)


def _user_key(r: ItemResult | Pending) -> tuple[str, str]:
    return r.suite, r.user_id


class StatisticalStop:
    """Statistical early stopping of one run's gate (the bets above): one object per run, asked after
    each result. It remembers each finished user's figures and the selection's shape, which never change.

    Thresholds are tested on the users finished at the head of ``order``; the regression gate and anything
    certain are decided as :func:`exact_decision` decides them; a ``judge.*`` threshold waits for every item.

    Args:
        gates: The run's gates.
        alpha: The chance the verdict differs from the full run's, at most; in (0, 1).
        order: The users (``(suite, user_id)``) in the run's random order
            (:func:`pytest_vitabench.run.schedule.user_order` with the run's seed).
        memo: Figures to share between objects over the same results (a simulation testing several gates).
    """

    def __init__(self, gates: Gates, *, alpha: float, order: Sequence[Any], memo: dict[Any, Any] | None = None):
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        self.gates, self.alpha, self.order = gates, alpha, list(order)
        self._memo: dict[Any, Any] = {} if memo is None else memo

    def _levels(self, key: Any, results: Sequence[ItemResult], k: int, gate_k: int) -> dict[str, Any]:
        """The metrics a threshold at ``k`` reads, computed as the gate computes them (without intervals)."""
        if key not in self._memo:
            gates = self.gates
            if k == gate_k:  # the table's figures; a threshold at a smaller K is recomputed as the gate does
                self._memo[key] = compute_metrics(results, k=k, seed=gates.seed, style=gates.style, trials=k,
                                                  bootstrap=0)
            else:
                self._memo[key] = compute_metrics(results, k=k, seed=gates.seed, bootstrap=0)
        return self._memo[key]

    def _shape(self, done: Sequence[ItemResult], pending: Sequence[Pending]
               ) -> tuple[int, list[str], dict[Any, list[ItemResult]]]:
        """The gate's k, the backends and each user's items at their worst: what no outcome changes."""
        if "shape" not in self._memo:
            worst = completed(done, pending, 0.0)
            by_user: dict[Any, list[ItemResult]] = {}
            for r in worst:
                by_user.setdefault(_user_key(r), []).append(r)
            self._memo["shape"] = (self.gates.k, sorted({r.memory for r in worst}), by_user)
        return self._memo["shape"]

    def _tests(self, done: Sequence[ItemResult], pending: Sequence[Pending]) -> list[_Test | GateVerdict]:
        """Each (threshold, backend) in the gate's order: a test, or its verdict when no outcome changes it."""
        assert self.gates.thresholds is not None
        gate_k, memories, planned = self._shape(done, pending)
        unfinished = {_user_key(p) for p in pending}
        finished: dict[Any, list[ItemResult]] = {}
        for r in done:
            if _user_key(r) not in unfinished:
                finished.setdefault(_user_key(r), []).append(r)
        out: list[_Test | GateVerdict] = []
        for t in self.gates.thresholds:
            k = gate_k if t.k is None or not METRIC_BY_NAME[t.metric].needs_k else t.k
            for memory in [t.memory] if t.memory is not None else memories:
                if memory not in memories:
                    out.append((str(t), None, "missed"))
                    continue
                if k > gate_k:
                    out.append((str(t), memory, "not_checked"))
                    continue
                shares: dict[Any, tuple[float, int]] = {}
                units: dict[Any, int] = {}
                for user, items in planned.items():
                    figures = self._levels(("plan", user, k), items, k, gate_k).get(memory, {}).get(t.level, {})
                    if figures.get("n_units"):
                        units[user] = int(figures["n_units"])
                    if user in finished:
                        own = self._levels(("done", user, k), finished[user], k, gate_k)
                        figures = own.get(memory, {}).get(t.level, {})
                        if figures.get("n_units"):
                            shares[user] = (figures[metric_key(t.metric, k)] * figures["n_units"],
                                            int(figures["n_units"]))
                out.append(_Test(t, memory, shares, units))
        return out

    def _settle(self, test: _Test, alpha: float) -> tuple[Bound, str | None]:
        """The test's bounds and its verdict (``None`` while open): certain bounds first, then the bets."""
        t, total = test.threshold, sum(test.units.values())
        name = str(t)
        if not total:
            return Bound(name, test.memory, None, None, "missed", "missed"), "missed"
        known = math.fsum(s for s, _ in test.shares.values())
        low = known / total
        high = (known + sum(n for user, n in test.units.items() if user not in test.shares)) / total
        at = t.value - _EPS  # the gate's own comparison: met at or above it
        if low >= at or high < at:
            status = "met" if low >= at else "missed"
            return Bound(name, test.memory, low, high, status, status), status
        population = [user for user in self.order if user in test.units]
        population += sorted(set(test.units) - set(population))  # a user the order leaves out comes last
        most = max(test.units.values())
        draws = []
        for user in population:  # the finished users at the head of the order: a random sample of the selection
            if user not in test.shares:
                break
            draws.append(test.shares[user][0] / most)
        found = decided_at(draws, len(population), at * total / (len(population) * most), alpha)
        if found is None:
            return Bound(name, test.memory, low, high, "missed", "met"), None
        status = "met" if found[1] else "missed"
        return Bound(name, test.memory, low, high, status, status), status

    def decide(self, done: Sequence[ItemResult], pending: Sequence[Pending]) -> Decision:
        """Whether the gate's verdict is settled with confidence ``1 - alpha``, given the results so far."""
        gates = self.gates
        total = len(done) + len(pending)
        if not gates.any or not pending or gates.judge_gated:
            return exact_decision(done, pending, gates)
        bounds: list[Bound] = []
        verdict: list[GateVerdict | None] = []
        if gates.thresholds is not None:
            tests = self._tests(done, pending)
            share = self.alpha / max(1, sum(isinstance(test, _Test) for test in tests))
            for test in tests:
                if isinstance(test, _Test):
                    bound, status = self._settle(test, share)
                    bounds.append(bound)
                    verdict.append(None if status is None else (str(test.threshold), test.memory, status))
                else:
                    verdict.append(test)
        if gates.fail_regression is not None:
            regression = regression_bound(completed(done, pending, 0.0), completed(done, pending, 1.0), gates)
            bounds.append(regression)
            verdict.append(("regression", None, regression.status_low) if regression.decided else None)
        if any(v is None for v in verdict):
            names = ", ".join(b.gate + (f" ({b.memory})" if b.memory else "") for b in bounds if not b.decided)
            return Decision(False, None, None, len(done), total, tuple(bounds), reason=f"undecided: {names}")
        settled = tuple(v for v in verdict if v is not None)
        return Decision(True, settled, passes(settled), len(done), total, tuple(bounds),
                        reason=f"decided after {len(done)} of {total} items (alpha {self.alpha:g})")
