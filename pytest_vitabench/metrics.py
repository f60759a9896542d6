"""Avg@k, Pass@k and Pass^k at the subtask and user levels, with user-clustered bootstrap intervals.

Pure functions over :class:`~pytest_vitabench.result.ItemResult` records. The semantics (errors count 0,
skipped and unscored items are left out, short units score 0, the official style, the paired differences)
are in ``docs/official-behaviour.md`` (its Metrics section: the official formulas and what differs) and
``docs/memory.md``.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

from .formulas import METRICS, is_success, metric_key
from .judges.base import NO_CRITERIA
from .memory.registry import paired_references
from .official.behaviour import metric_rules
from .result import ItemResult

LEVELS = ("subtask", "user")
#: Backends every other backend is compared with, when they are in the run (floor and ceiling).
PAIRED_REFERENCES = tuple(paired_references())




@dataclass(frozen=True)
class _Trial:
    """The slice of an item the metrics need, with errors already turned into reward 0."""

    suite: str
    user_id: str
    subtask_id: str
    domain: str
    skills: tuple[str, ...]
    trial: int
    reward: float
    error: bool
    unscored: bool = False
    #: Official style only: a stand-in 0.0 for a subtask without criteria, counted at the subtask level alone.
    unjudged: bool = False
    #: A stand-in for a trial the run never started (a spend cap): its unit is left out as an unscored one is.
    not_run: bool = False


@dataclass
class _UserAggregate:
    """One user's contribution to a level: sums of unit values and the number of units."""

    sums: list[float]  # in METRICS order
    units: int


def _unit_values(rewards: Sequence[float], k: int, pad_to: int = 0) -> list[float] | None:
    """The unit's value of each of :data:`METRICS`, or None when it has fewer than k trials (it then scores 0).

    ``pad_to`` (official style) is the run's number of trials: each missing one counts as a 0.0 reward.
    """
    if len(rewards) < pad_to:
        rewards = [*rewards, *[0.0] * (pad_to - len(rewards))]
    n = len(rewards)
    if n < k:
        return None
    c = sum(1 for r in rewards if is_success(r))
    return [metric.unit(rewards, c, k) for metric in METRICS]


def _aggregates(trials: Sequence[_Trial], level: str, k: int,
                pad_to: int = 0) -> tuple[list[_UserAggregate], int]:
    """Per-user aggregates of one level (sorted by user so results never depend on input order), and the
    number of units with fewer than k trials. A unit short because of unscored trials is left out, not short:
    the shortfall is the judge's, not the agent's."""
    by_user: dict[tuple[str, str], list[_Trial]] = defaultdict(list)
    for t in trials:
        if level == "subtask" or not t.unjudged:
            by_user[(t.suite, t.user_id)].append(t)
    out: list[_UserAggregate] = []
    short = 0
    for user in sorted(by_user):
        units: dict[Any, list[float]] = defaultdict(list)
        if level == "subtask":
            unscored = {t.subtask_id for t in by_user[user] if t.unscored}
            for t in by_user[user]:
                if not t.unscored:
                    units[t.subtask_id].append(t.reward)
            keyed = [(key in unscored, sorted(units[key])) for key in sorted(set(units) | unscored)]
        else:
            unscored_trials = {t.trial for t in by_user[user] if t.unscored}
            for t in by_user[user]:
                if t.trial not in unscored_trials:
                    units[t.trial].append(t.reward)
            # Sorting within a trial fixes the float summation order; the mean is the user's reward.
            keyed = [(bool(unscored_trials), [math.fsum(rs) / len(rs) for _, rs in sorted(units.items())])]
        sums = [0.0] * len(METRICS)
        counted = 0
        for has_unscored, rewards in keyed:
            if len(rewards) < k and has_unscored:
                continue  # short because the judge failed: left out, not scored 0
            counted += 1
            if len(rewards) < k:
                short += 1
            values = _unit_values(rewards, k, pad_to if level == "subtask" else 0)
            if values is None:
                continue
            for i, v in enumerate(values):
                sums[i] += v
        if counted:
            out.append(_UserAggregate(sums=sums, units=counted))
    return out, short


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of already sorted values (numpy's default method)."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _resamples(n_users: int, bootstrap: int, seed: int) -> Iterator[itemgetter[Any]]:
    """The bootstrap's draws of user positions: one getter per resample, which gathers its picks in C and in
    the order a loop would (so ``sum()`` of them is bit for bit the plain loop's). Each call draws anew from
    ``seed``, so an interval never depends on what else was computed."""
    rng = random.Random(seed)
    for _ in range(bootstrap):
        yield itemgetter(*rng.choices(range(n_users), k=n_users))


def bootstrap_intervals(groups: Sequence[Any], statistic: Callable[[Sequence[Any]], Sequence[float | None]], *,
                        bootstrap: int = 1000, seed: int = 0) -> list[list[float] | None]:
    """95% percentile intervals of the figures ``statistic`` computes over ``groups`` (one per user) resampled
    with replacement: the metrics' intervals, the paired differences and the judge audit's figures.

    Args:
        groups: One entry per user: whatever ``statistic`` pools.
        statistic: The figures of a resample (a list of groups, repeats allowed), always as many; a figure
            ``None`` (undefined, e.g. kappa of one class) is left out of that figure's draws.
        bootstrap: Resamples; 0 gives ``None`` intervals.
        seed: Seed of the draws.

    Returns:
        One ``[lo, hi]`` per figure (``None`` without groups, resamples or defined values); with one user, the
        resample is the user, so the interval holds only the statistic's own spread.
    """
    if not groups:
        return [None] * len(statistic([]))
    picks: Iterable[Any]
    if len(groups) == 1:
        if bootstrap <= 0:
            point = statistic(list(groups))
            return [None if v is None else [v, v] for v in point]
        picks = (list(groups) for _ in range(bootstrap))
    elif bootstrap <= 0:
        return [None] * len(statistic(list(groups)))
    else:
        picks = (pick(groups) for pick in _resamples(len(groups), bootstrap, seed))
    draws: list[list[float]] = []
    for picked in picks:
        values = statistic(picked)
        if not draws:
            draws = [[] for _ in values]
        for column, value in zip(draws, values, strict=True):
            if value is not None:
                column.append(value)
    out: list[list[float] | None] = []
    for column in draws:
        column.sort()
        out.append([_quantile(column, 0.025), _quantile(column, 0.975)] if column else None)
    return out


def _metric_intervals(users: list[_UserAggregate], bootstrap: int, seed: int) -> list[list[float] | None]:
    """95% percentile intervals of the metrics, resampling whole users with replacement."""
    rows = [(u.units, *u.sums) for u in users]

    def statistic(picked: Sequence[tuple[float, ...]]) -> list[float | None]:
        if not picked:
            return [None] * len(METRICS)
        units, *sums = map(sum, zip(*picked, strict=True))  # in C, and in the users' order: bit for bit a loop's
        return [value / units for value in sums]

    return bootstrap_intervals(rows, statistic, bootstrap=bootstrap, seed=seed)


def _level(trials: Sequence[_Trial], level: str, k: int, bootstrap: int, seed: int,
           pad_to: int = 0) -> dict[str, Any]:
    users, short = _aggregates(trials, level, k, pad_to)
    n_units = sum(u.units for u in users)
    keys = [metric.key(k) for metric in METRICS]
    values: list[float | None] = [None] * len(METRICS)
    if n_units:
        values = [math.fsum(u.sums[i] for u in users) / n_units for i in range(len(METRICS))]
    return {**dict(zip(keys, values, strict=True)), "n_units": n_units,
            "n_errors": sum(1 for t in trials if t.error),
            "n_unscored": sum(1 for t in trials if t.unscored and not t.not_run),
            "n_short": short, "ci95": dict(zip(keys, _metric_intervals(users, bootstrap, seed), strict=True))}


def _level_with_breakdowns(trials: Sequence[_Trial], level: str, k: int, bootstrap: int,
                           seed: int, pad_to: int = 0) -> dict[str, Any]:
    out = _level(trials, level, k, bootstrap, seed, pad_to)
    by_domain: dict[str, list[_Trial]] = defaultdict(list)
    by_skill: dict[str, list[_Trial]] = defaultdict(list)
    for t in trials:
        by_domain[t.domain].append(t)
        for skill in t.skills:
            by_skill[skill].append(t)
    out["by_domain"] = {d: _level(by_domain[d], level, k, bootstrap, seed, pad_to) for d in sorted(by_domain)}
    out["by_skill"] = {s: _level(by_skill[s], level, k, bootstrap, seed, pad_to) for s in sorted(by_skill)}
    return out


def _to_trial(r: ItemResult) -> _Trial:
    error = r.outcome == "error"
    return _Trial(suite=r.suite, user_id=r.user_id, subtask_id=r.subtask_id, domain=r.domain,
                  skills=tuple(sorted(set(r.skills))), trial=r.trial,
                  reward=0.0 if error else float(r.reward), error=error, unscored=r.unscored)


def _official_unjudged(results: Sequence[ItemResult]) -> list[tuple[str, _Trial]]:
    """Official style: the 0.0 stand-ins of subtasks without criteria below a user's last judged index.

    The official harness leaves such a subtask out of a run's ``subtask_rewards`` and then fills every index up
    to the highest one present with 0.0.
    """
    last_judged: dict[tuple[str, str, str], int] = {}
    for r in results:
        if r.outcome != "skipped":
            key = (r.memory, r.suite, r.user_id)
            last_judged[key] = max(last_judged.get(key, -1), r.subtask_index)
    return [
        (r.memory, replace(_to_trial(r), reward=0.0, error=False, unscored=False, unjudged=True))
        for r in results
        if r.outcome == "skipped" and r.error == NO_CRITERIA
        and r.subtask_index < last_judged.get((r.memory, r.suite, r.user_id), -1)
    ]


def pads_missing_trials(style: str) -> bool:
    """Whether the metrics style counts each missing trial of a unit as a 0.0 reward (else a short unit scores 0)."""
    return metric_rules(style).pad_to_trials


def default_k(results: Iterable[ItemResult]) -> int | None:
    """The fewest trials observed for any subtask unit of any backend (skipped items aside), or ``None``."""
    counts: dict[tuple[str, str, str, str], int] = defaultdict(int)
    for r in results:
        if r.outcome != "skipped" or r.unscored:  # an unscored item was run: it counts towards K
            counts[(r.memory, r.suite, r.user_id, r.subtask_id)] += 1
    return min(counts.values()) if counts else None


def _user_means(trials: Sequence[_Trial], k: int) -> dict[tuple[str, str], dict[str, float]]:
    """``{(suite, user): {subtask_id: unit Avg@k}}``; a unit with fewer than k trials scores 0."""
    units: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    unscored: set[tuple[str, str, str]] = set()
    for t in trials:
        if t.unscored:
            unscored.add((t.suite, t.user_id, t.subtask_id))
        else:
            units[(t.suite, t.user_id)][t.subtask_id].append(t.reward)
    out: dict[tuple[str, str], dict[str, float]] = {}
    for user, by_unit in units.items():
        out[user] = {}
        for unit, rewards in by_unit.items():
            values = _unit_values(sorted(rewards), k)
            if values is not None or (*user, unit) not in unscored:  # short by the judge's failure: left out
                out[user][unit] = values[0] if values is not None else 0.0
    return out


def paired_difference(trials: Sequence[_Trial], reference: Sequence[_Trial], k: int, *, bootstrap: int = 1000,
                      seed: int = 0) -> dict[str, Any] | None:
    """Per-user paired difference of subtask-level Avg@k between two backends (mean over users of the mean
    over their common subtasks), with a user-resampled 95% interval.

    Returns:
        ``{"metric": "avg@K", "mean": float, "ci95": [lo, hi] | None, "n_users": int, "n_units": int}``, or
        ``None`` when no user has a subtask under both.
    """
    mine, theirs = _user_means(trials, k), _user_means(reference, k)
    diffs: list[float] = []
    n_units = 0
    for user in sorted(set(mine) & set(theirs)):
        common = sorted(set(mine[user]) & set(theirs[user]))
        if not common:
            continue
        n_units += len(common)
        diffs.append(math.fsum(mine[user][u] - theirs[user][u] for u in common) / len(common))
    if not diffs:
        return None
    mean = math.fsum(diffs) / len(diffs)
    ci = bootstrap_intervals(diffs, lambda picked: [math.fsum(picked) / len(picked) if picked else None],
                             bootstrap=bootstrap, seed=seed)[0]
    return {"metric": metric_key("avg", k), "mean": mean, "ci95": ci, "n_users": len(diffs), "n_units": n_units}


def _unit_and_trial(nodeid: str) -> tuple[str, int] | None:
    """``(unit, trial)`` of an item's node id, ``...::SUBTASK[MEMORY-tN]`` (the unit: the id without ``-tN``)."""
    unit, sep, trial = nodeid.rpartition("-t")
    return (unit, int(trial[:-1])) if sep and trial.endswith("]") and trial[:-1].isdigit() else None


def _not_run_stand_ins(results: Sequence[ItemResult], not_run: Iterable[str]) -> list[tuple[str, _Trial]]:
    """Stand-ins for the trials the run never started, of units with a finished trial: flagged like an unscored
    trial, so a unit (and a user's trial) they leave short is left out rather than scored 0. A unit with no
    finished trial is no unit of the run already."""
    finished: dict[str, ItemResult] = {}
    for r in results:
        parsed = _unit_and_trial(r.nodeid)
        if parsed is not None:
            finished.setdefault(parsed[0], r)
    out = []
    for nodeid in not_run:
        parsed = _unit_and_trial(nodeid)
        template = finished.get(parsed[0]) if parsed is not None else None
        if parsed is not None and template is not None:
            out.append((template.memory, replace(_to_trial(template), trial=parsed[1], reward=0.0, error=False,
                                                 unscored=True, not_run=True)))
    return out


def compute_metrics(results: Sequence[ItemResult], *, k: int | None = None, bootstrap: int = 1000,
                    seed: int = 0, style: str = "default", trials: int | None = None,
                    not_run: Iterable[str] = ()) -> dict[str, Any]:
    """Avg@K, Pass@K and Pass^K per memory backend at the subtask and user levels.

    Args:
        results: Every item's result, in any order (the output does not depend on it).
        k: The K of the metrics; by default :func:`default_k` (so every backend reports the same K).
        bootstrap: Resamples for the 95% intervals; 0 leaves them ``None`` (except for a single user).
        seed: Seed of the bootstrap generator.
        style: ``default`` or ``official``: how missing trials and subtasks without criteria count.
        trials: Official style: the run's number of trials, which every subtask unit is padded to with 0.0
            rewards whatever K is (default: K).
        not_run: Node ids of selected trials the run never started (``--vita-budget-usd``): by default a unit
            they leave short is left out, not scored 0; a style that pads missing trials pads them too.

    Returns:
        ``{memory: {"k": K, "subtask": LEVEL, "user": LEVEL, "n_skipped": int}}`` where LEVEL holds
        ``avg@K``, ``pass@K``, ``pass^K`` (``None`` when there are no units), ``n_units``, ``n_errors``,
        ``n_short``, ``ci95`` (``{metric: [lo, hi] | None}``) and ``by_domain`` / ``by_skill``
        (``{name: LEVEL without breakdowns}``). Each backend also has ``paired``: ``{"vs_none": ...,
        "vs_groundtruth": ...}`` with the :func:`paired_difference` against each of those backends that
        is in the run (empty otherwise).

    Raises:
        ValueError: If ``k`` is given and below 1.
    """
    if k is not None and k < 1:
        raise ValueError(f"k must be at least 1, got k={k}")
    rules = metric_rules(style)
    K = k if k is not None else (default_k(results) or 1)
    by_memory: dict[str, list[_Trial]] = defaultdict(list)
    skipped: dict[str, int] = defaultdict(int)
    for r in results:
        if r.outcome == "skipped" and not r.unscored:
            skipped[r.memory] += 1
        else:
            by_memory[r.memory].append(_to_trial(r))
    if rules.unjudged_fail:
        for memory, stand_in in _official_unjudged(results):
            by_memory[memory].append(stand_in)
    if not rules.pad_to_trials:
        for memory, stand_in in _not_run_stand_ins(results, not_run):
            by_memory[memory].append(stand_in)
    out: dict[str, Any] = {}
    pad_to = max(K, trials or 0) if rules.pad_to_trials else 0
    for memory in sorted(set(by_memory) | set(skipped)):
        rows = by_memory.get(memory, [])
        out[memory] = {
            "k": K,
            "subtask": _level_with_breakdowns(rows, "subtask", K, bootstrap, seed, pad_to),
            "user": _level_with_breakdowns(rows, "user", K, bootstrap, seed),
            "n_skipped": skipped.get(memory, 0),
        }
    judged = {memory: [t for t in trials if not t.unjudged] for memory, trials in by_memory.items()}
    for memory in out:
        paired: dict[str, Any] = {}
        for reference in PAIRED_REFERENCES:
            if reference != memory and judged.get(reference):
                diff = paired_difference(judged.get(memory, []), judged[reference], K,
                                         bootstrap=bootstrap, seed=seed)
                if diff is not None:
                    paired[f"vs_{reference}"] = diff
        out[memory]["paired"] = paired
    return out
