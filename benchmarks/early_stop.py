"""Early stopping of a gate on simulated runs: how many items a decision needs, and how often it is wrong.

No LLM and no pytest run: a stub outcome per item (each user passes its items with its own probability,
drawn around the suite's true rate), in the ItemResult shape, given to the decision core
(``pytest_vitabench.report.early_stop``) as a run would give it its results.

    python benchmarks/early_stop.py [--runs 500] [--exact-runs 5] [--users 56] [--alpha 0.05]

The suite has the paper suite's shape (56 users with its numbers of subtasks, 4 trials, one backend,
3,136 items; ``--users`` repeats or cuts the list). The gate is ``--vita-fail-under avg@4=T``.

Statistical (``--vita-early-stop alpha=A``): per setting, ``--runs`` seeded runs; in each, users run one after
another in the seeded random order, and the decision is asked after each user. For a threshold at distance
d above and below the true rate, the table gives the share of runs whose early verdict differs from the
full run's (the full run of the same outcomes), the share decided before the last user, and the mean share
of items run (an undecided run runs them all).

Exact (``--vita-early-stop exact``): items in the interleaved order (round robin over users in the seeded
order), the decision asked after each item; the items run before it, for several thresholds, and whether
the verdict equals the full run's (it must, every time).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from pytest_vitabench.options.fail_under import parse_fail_under
from pytest_vitabench.report.early_stop import Decision, Gates, Pending, exact_decision, threshold_outcomes
from pytest_vitabench.report.sequential import StatisticalStop
from pytest_vitabench.result import ItemResult
from pytest_vitabench.run.schedule import interleaved, user_order

ROOT = Path(__file__).resolve().parent.parent
TRIALS = 4
#: How alike a suite's users are: each user's pass rate is Beta-distributed around the true rate with this
#: concentration (4: rates spread over most of [0, 1], as agents' per-user success does).
CONCENTRATION = 4.0


def paper_shape(users: int) -> list[int]:
    """Subtasks per user: the paper suite's, repeated or cut to ``users``."""
    path = ROOT / "suites" / "paper" / "tasks.vita.json.gz"
    counts = [len(u["subtasks"]) for u in json.loads(gzip.decompress(path.read_bytes()))]
    return [counts[i % len(counts)] for i in range(users)]


def plan(shape: list[int]) -> list[Pending]:
    return [Pending(nodeid=f"paper::u{u:03d}::st{s:02d}[none-t{t}]", user_id=f"u{u:03d}", subtask_id=f"st{s:02d}",
                    subtask_index=s, memory="none", trial=t, suite="paper", domain="delivery")
            for u, count in enumerate(shape) for s in range(count) for t in range(TRIALS)]


def simulate(items: list[Pending], rate: float, rng: random.Random) -> dict[str, ItemResult]:
    """One run's results: each user passes each item with its own probability, drawn around ``rate``."""
    a, b = rate * CONCENTRATION, (1 - rate) * CONCENTRATION
    user_rate: dict[str, float] = {}
    out = {}
    for item in items:
        p = user_rate.setdefault(item.user_id, rng.betavariate(a, b))
        out[item.nodeid] = item.ended(1.0 if rng.random() < p else 0.0)
    return out


def earliest(n: int, ask: Callable[[int], Decision]) -> tuple[int, Decision]:
    """The least ``k`` in [0, n] whose decision ``ask(k)`` is made, and that decision (decisions never come
    undone as results arrive, so a bisection finds it)."""
    asked: dict[int, Decision] = {}
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        asked[mid] = ask(mid)
        if asked[mid].decided:
            hi = mid
        else:
            lo = mid + 1
    return lo, asked[lo] if lo in asked else ask(lo)


def _ask_statistical(stop: StatisticalStop, done: list[list[ItemResult]], pending: list[list[Pending]],
                     users: int) -> Decision:
    return stop.decide(done[users], pending[users])


def _ask_exact(gates: Gates, done: list[ItemResult], ordered: list[Pending], items: int) -> Decision:
    return exact_decision(done[:items], ordered[items:], gates)


def statistical(items: list[Pending], *, rate: float, distances: list[float], alpha: float, runs: int,
                seed: int) -> list[dict[str, float]]:
    users = sorted({(i.suite, i.user_id) for i in items})
    by_user: dict[tuple[str, str], list[Pending]] = {}
    for item in items:
        by_user.setdefault((item.suite, item.user_id), []).append(item)
    thresholds = [(d, rate + side * d) for d in distances for side in (1, -1)]
    rows = {key: {"wrong": 0, "early": 0, "share": []} for key in thresholds}  # type: ignore[var-annotated]
    shape: dict[object, object] = {}
    for run in range(runs):
        rng = random.Random(seed * 1_000_003 + run)
        results = simulate(items, rate, rng)
        order = user_order(users, seed=run)
        gates_of = {key: Gates(trials=TRIALS, seed=run, thresholds=tuple(parse_fail_under(f"avg@4={key[1]:.6f}")))
                    for key in thresholds}
        full = list(results.values())
        every = [t for g in gates_of.values() for t in g.thresholds or ()]
        outcomes = threshold_outcomes(full, Gates(trials=TRIALS, seed=run, thresholds=tuple(every)))
        truth = {key: outcome.status for key, outcome in zip(thresholds, outcomes, strict=True)}
        # The selection's shape (each user's units, the gate's k) is the same in every run: computed once.
        memo: dict[object, object] = dict(shape)
        prefix_done = [[]]  # type: ignore[var-annotated]
        for user in order:
            prefix_done.append(prefix_done[-1] + [results[i.nodeid] for i in by_user[user]])
        pending_after = [[i for u in order[n:] for i in by_user[u]] for n in range(len(order) + 1)]
        for key, gates in gates_of.items():
            stop = StatisticalStop(gates, alpha=alpha, order=order, memo=memo)
            at, decision = earliest(len(order), partial(_ask_statistical, stop, prefix_done, pending_after))
            verdict = decision.verdict
            assert verdict is not None
            row = rows[key]
            row["wrong"] += verdict[0][2] != truth[key]
            row["early"] += at < len(order)
            row["share"].append(len(prefix_done[at]) / len(items))
        if not shape:
            shape = {key: value for key, value in memo.items() if key == "shape" or key[0] == "plan"}  # type: ignore[index]
    out = []
    for (d, threshold), row in rows.items():
        out.append({"distance": d, "threshold": threshold, "wrong": row["wrong"] / runs,
                    "early": row["early"] / runs, "share": statistics.mean(row["share"])})
    return out


def exact(items: list[Pending], *, rate: float, thresholds: list[str], runs: int, seed: int
          ) -> list[dict[str, object]]:
    out = []
    for spec in thresholds:
        gates = Gates(trials=TRIALS, thresholds=tuple(parse_fail_under(spec)))
        shares, same, met = [], 0, 0
        for run in range(runs):
            results = simulate(items, rate, random.Random(seed * 7_919 + run))
            ordered = interleaved(items, lambda i: (i.suite, i.user_id), seed=run)
            done = [results[i.nodeid] for i in ordered]
            at, decision = earliest(len(ordered), partial(_ask_exact, gates, done, ordered))
            outcomes = threshold_outcomes(done, gates)
            full = tuple((str(o.threshold), o.memory, o.status) for o in outcomes)
            same += decision.verdict == full
            met += full[0][2] == "met"
            shares.append(at / len(items))
        out.append({"gate": spec, "runs": runs, "met": met, "same": same, "share": statistics.mean(shares),
                    "max": max(shares)})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=500, help="seeded runs per statistical setting")
    parser.add_argument("--exact-runs", type=int, default=5, help="seeded runs per exact threshold")
    parser.add_argument("--users", type=int, default=56)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--rates", default="0.5,0.3", help="true rates, one statistical setting each")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    items = plan(paper_shape(args.users))
    print(f"suite: {args.users} users, {len(items)} items ({TRIALS} trials); gate avg@4=T; alpha {args.alpha}")
    distances = [0.02, 0.05, 0.1, 0.2]
    started = time.perf_counter()
    for rate in (float(r) for r in args.rates.split(",")):
        rows = statistical(items, rate=rate, distances=distances, alpha=args.alpha, runs=args.runs, seed=args.seed)
        print(f"\nstatistical, true rate {rate}, {args.runs} runs")
        print("| distance | threshold | verdict differs from the full run's | decided early "
              "| mean share of items run |")
        print("|---|---|---|---|---|")
        for row in rows:
            side = "+" if row["threshold"] > rate else "-"  # the threshold above or below the true rate
            print(f"| {side}{row['distance']:.2f} | {row['threshold']:.2f} | {row['wrong']:.1%} | {row['early']:.0%} "
                  f"| {row['share']:.0%} |")
    rate = 0.5
    specs = [f"avg@4={t}" for t in (0.3, 0.4, 0.45, 0.55, 0.6, 0.7)] + ["pass^4=0.1", "pass@4=0.9"]
    rows_exact = exact(items, rate=rate, thresholds=specs, runs=args.exact_runs, seed=args.seed)
    print(f"\nexact, true rate {rate}, {args.exact_runs} runs per gate, interleaved order")
    print("| gate | full run met it | verdict equal to the full run's | mean share of items run | most |")
    print("|---|---|---|---|---|")
    for row in rows_exact:
        print(f"| {row['gate']} | {row['met']} of {row['runs']} | {row['same']} of {row['runs']} "
              f"| {row['share']:.0%} | {row['max']:.0%} |")
    print(f"\n{time.perf_counter() - started:.0f} s wall, {time.process_time():.0f} s CPU; "
          f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min)")
    return 0 if all(row["same"] == row["runs"] for row in rows_exact) else 1


if __name__ == "__main__":
    sys.exit(main())
