"""How often an LLM judge agrees with the rules judge, and with itself: agreement, kappa, false passes and fails.

Pure functions over :class:`~pytest_vitabench.result.ItemResult` records whose ``judge_details["rules"]``
holds the rules judge's verdicts on the machine-checked rubrics (put there by
:class:`~pytest_vitabench.judges.audited.AuditedJudge`); ``docs/judge-audit.md`` defines the figures. A rubric
the judge failed to return (``judge_failure``) is no pair: it is counted as unscored.

The intervals are a two-stage bootstrap: users resampled (the metrics' own draws), then each drawn user's
rubrics, because with the few users of a small suite the spread between users alone misses the chance in
which verdicts went wrong.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..metrics import bootstrap_intervals
from ..result import ItemResult

#: The figures of :func:`figures`, in display order; the first two can be gated on (``judge.kappa=0.8``).
FIGURES = ("agreement", "kappa", "false_pass", "false_fail")


@dataclass(frozen=True)
class Pair:
    """One machine-checked rubric judged by both judges: ``truth`` is the rules judge's verdict, ``judged`` the
    LLM judge's; ``user`` (``(suite, user_id)``) is the unit of resampling."""

    user: tuple[str, str]
    nodeid: str
    text: str
    kind: str
    domain: str
    truth: bool
    judged: bool
    truth_reason: str = ""
    judge_reason: str = ""


@dataclass
class Collected:
    """What :func:`collect` found in a list of results."""

    pairs: list[Pair]
    #: Machine-checked rubrics the judge failed to return.
    unscored: int = 0
    #: Items with machine-checked rubrics.
    items: int = 0


def collect(results: Iterable[ItemResult]) -> Collected:
    """The (truth, verdict) pairs of every machine-checked rubric the LLM judge returned a verdict for."""
    out = Collected(pairs=[])
    for r in results:
        truth = (r.judge_details or {}).get("rules") or []
        if not truth or r.outcome == "error":
            continue
        out.items += 1
        verdicts = {v.text: v for v in r.rubrics if v.kind == "rubric"}
        for entry in truth:
            verdict = verdicts.get(entry["text"])
            if verdict is None or entry.get("met") is None:
                continue
            if verdict.judge_failure:
                out.unscored += 1
                continue
            if verdict.met is None:
                continue  # not judged for a reason of the episode's (scored 0 without judging)
            out.pairs.append(Pair(user=(r.suite, r.user_id), nodeid=r.nodeid, text=entry["text"],
                                  kind=str(entry.get("kind") or "other"), domain=r.domain, truth=bool(entry["met"]),
                                  judged=bool(verdict.met), truth_reason=str(entry.get("reason") or ""),
                                  judge_reason=verdict.reason))
    return out


def _figure(name: str, counts: tuple[int, int, int, int]) -> float | None:
    a, b, c, d = counts
    n = a + b + c + d
    if name == "agreement":
        return (a + d) / n if n else None
    if name == "false_pass":
        return c / (c + d) if c + d else None
    if name == "false_fail":
        return b / (a + b) if a + b else None
    if not n:
        return None
    observed = (a + d) / n
    chance = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n)
    return None if chance >= 1.0 else (observed - chance) / (1.0 - chance)


def _code(p: Pair) -> int:
    """The pair's cell: 0 both met, 1 a false fail, 2 a false pass, 3 both unmet."""
    return 0 if p.truth and p.judged else 1 if p.truth else 2 if p.judged else 3


def _block(n: int, n_users: int, cells: Sequence[int]) -> dict[str, Any]:
    a, b, c, d = cells
    out: dict[str, Any] = {
        "n": n, "n_users": n_users,
        "counts": {"met_met": a, "met_unmet": b, "unmet_met": c, "unmet_unmet": d},
    }
    out.update({name: _figure(name, (a, b, c, d)) for name in FIGURES})
    return out


def sliced_figures(pairs: Sequence[Pair], keys: Sequence[str] = (), *, bootstrap: int = 1000,
                   seed: int = 0) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """:func:`figures` of all pairs and of each value of each pair attribute in ``keys``, every slice tallied
    from the same two-stage draws.

    Returns:
        The overall block, and ``{key: {value: block}}``.
    """
    values = {key: sorted({getattr(p, key) for p in pairs}) for key in keys}
    slices = [(key, v) for key in keys for v in values[key]]
    slot = {s: i + 1 for i, s in enumerate(slices)}  # 0 is the overall slice
    # a pair as its cell (0-3) and the slices it counts in: equal pairs tally together
    by_user: dict[tuple[str, str], list[tuple[int, ...]]] = defaultdict(list)
    for p in pairs:
        by_user[p.user].append((_code(p), 0, *(slot[(key, getattr(p, key))] for key in keys)))
    groups = [by_user[u] for u in sorted(by_user)]

    def tally(counted: Iterable[tuple[tuple[int, ...], int]]) -> list[list[int]]:
        cells = [[0, 0, 0, 0] for _ in range(len(slices) + 1)]
        for (cell, *where), n in counted:
            for position in where:
                cells[position][cell] += n
        return cells

    rng = random.Random(seed)

    def statistic(picked: Sequence[list[tuple[int, ...]]]) -> list[float | None]:
        drawn: Counter[tuple[int, ...]] = Counter()
        for codes in picked:
            drawn.update(rng.choices(codes, k=len(codes)))
        return [_figure(name, (c[0], c[1], c[2], c[3])) for c in tally(drawn.items()) for name in FIGURES]

    intervals = bootstrap_intervals(groups, statistic, bootstrap=bootstrap, seed=seed)
    point = tally(Counter(c for codes in groups for c in codes).items())
    users = [len(by_user)] + [len({p.user for p in pairs if getattr(p, key) == v}) for key, v in slices]
    blocks = []
    for i, cells in enumerate(point):
        block = _block(sum(cells), users[i], cells)
        block["ci95"] = dict(zip(FIGURES, intervals[i * len(FIGURES):(i + 1) * len(FIGURES)], strict=True))
        blocks.append(block)
    out: dict[str, dict[str, Any]] = {key: {} for key in keys}
    for (key, v), block in zip(slices, blocks[1:], strict=True):
        out[key][v] = block
    return blocks[0], out


def figures(pairs: Sequence[Pair], *, bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Agreement, kappa, false pass and false fail rates of ``pairs``, with bootstrap intervals over users.

    Returns:
        ``{"n": pairs, "n_users": users, "counts": {"met_met", "met_unmet", "unmet_met", "unmet_unmet"}
        (truth_judge), FIGURE: value | None for each of FIGURES, "ci95": {FIGURE: [lo, hi] | None}}``.
    """
    return sliced_figures(pairs, bootstrap=bootstrap, seed=seed)[0]


def flip_rate(repeats: Sequence[Sequence[ItemResult]], *, bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    """How often N judgings of the same trajectories (one result list per judging, matched by node id)
    disagree with each other.

    Returns:
        ``{"repeats": N, "rubrics": n, "flipped": n, "rate": float | None, "items": n, "items_flipped": n,
        "item_rate": float | None, "ci95": {"rate": [lo, hi] | None, "item_rate": ...}}``: rubric level over every
        rubric every judging returned a verdict for, item level over the rewards of items scored every time.
    """
    per_rubric: dict[tuple[str, str], list[bool]] = defaultdict(list)
    per_item: dict[str, list[float]] = defaultdict(list)
    users: dict[str, tuple[str, str]] = {}
    for results in repeats:
        for r in results:
            if r.outcome == "error":
                continue
            users[r.nodeid] = (r.suite, r.user_id)
            for v in r.rubrics:
                if v.met is not None and not v.judge_failure:
                    per_rubric[(r.nodeid, v.text)].append(v.met)
            if r.outcome in ("passed", "failed"):
                per_item[r.nodeid].append(r.reward)
    n = len(repeats)
    # per user, one code per rubric (or item) judged every time: 1 when its verdicts (rewards) differ
    rubric_flips: dict[tuple[str, str], list[int]] = defaultdict(list)
    for (nodeid, _), verdicts in per_rubric.items():
        if len(verdicts) == n:
            rubric_flips[users[nodeid]].append(int(len(set(verdicts)) > 1))
    item_flips: dict[tuple[str, str], list[int]] = defaultdict(list)
    for nodeid, rewards in per_item.items():
        if len(rewards) == n:
            item_flips[users[nodeid]].append(int(len(set(rewards)) > 1))

    def interval(by_user: dict[tuple[str, str], list[int]]) -> list[float] | None:
        rng = random.Random(seed)

        def rate(picked: Sequence[list[int]]) -> list[float | None]:
            drawn = [rng.choices(codes, k=len(codes)) for codes in picked]
            total = sum(len(d) for d in drawn)
            return [sum(sum(d) for d in drawn) / total if total else None]

        return bootstrap_intervals([by_user[u] for u in sorted(by_user)], rate, bootstrap=bootstrap, seed=seed)[0]

    def point(by_user: dict[tuple[str, str], list[int]]) -> tuple[int, int, float | None]:
        total = sum(len(c) for c in by_user.values())
        flipped = sum(sum(c) for c in by_user.values())
        return total, flipped, (flipped / total if total else None)

    rubrics, flipped, rubric_rate = point(rubric_flips)
    items, items_flipped, item_rate = point(item_flips)
    return {
        "repeats": n, "rubrics": rubrics, "flipped": flipped, "rate": rubric_rate,
        "items": items, "items_flipped": items_flipped, "item_rate": item_rate,
        "ci95": {"rate": interval(rubric_flips), "item_rate": interval(item_flips)},
    }


def judge_summary(results: Sequence[ItemResult], *, bootstrap: int = 1000, seed: int = 0) -> dict[str, Any] | None:
    """The judge figures of a run (the report's ``judge`` block), or ``None`` when no item has a rules truth.

    Returns:
        :func:`figures` of every pair, plus ``by_kind``, ``by_domain``, ``unscored`` (machine-checked rubrics
        the judge failed to return) and ``items`` (items with machine-checked rubrics).
    """
    found = collect(results)
    if not found.items:
        return None
    out, sliced = sliced_figures(found.pairs, ("kind", "domain"), bootstrap=bootstrap, seed=seed)
    out["by_kind"], out["by_domain"] = sliced["kind"], sliced["domain"]
    out["unscored"] = found.unscored
    out["items"] = found.items
    return out
