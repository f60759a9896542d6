"""CPU the ``reference`` agent spends reading its memory, per item, on the paper-scale suite (issue 8).

    python benchmarks/bench_reference_memory.py                        # the paper suite, full_context, 4 trials
    python benchmarks/bench_reference_memory.py --trials 1 --users 8   # a quicker look
    python benchmarks/bench_reference_memory.py --texts /tmp/texts.json.gz   # render once, reuse (before/after)

The agent turns its memory text into evidence (:class:`~pytest_vitabench.text.preferences.PreferenceMemory`)
once per distinct text and answers queries from it. This script renders every user's ``full_context`` memory
before each subtask with the real backend, then asks for each item's memory the way the agent does (every trial
of a subtask in turn), in two orders: collection order (one user after another, as pytest and xdist's load
scheduling run them) and interleaved (round-robin over all users, the worst case for any cache). It prints
the CPU time (``time.process_time``) per item and per distinct text, and how many texts extend the previous
one (a growing history) or were truncated at the front by the budget. All parse caches start cold.

A benchmark, not a test: it prints figures and asserts nothing about time. Note ``uptime`` beside them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import time
from pathlib import Path

from pytest_vitabench.config import RunConfig
from pytest_vitabench.runner import ItemRunner

try:  # the text facts moved out of agents/ (issue 11); keep the script runnable on both layouts
    from pytest_vitabench.text import preferences as _preferences
    from pytest_vitabench.text.clauses import profile_statements
except ImportError:  # pragma: no cover - the layout before the split
    from pytest_vitabench.agents import heuristics as _preferences  # type: ignore[attr-defined,no-redef]

    profile_statements = _preferences.profile_statements  # type: ignore[attr-defined]

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"


def _texts(suite_path: Path, users: int | None) -> list[list[tuple[str, tuple[str, ...]]]]:
    """Per user, the (memory text, profile statements) the agent reads before each subtask."""
    runner = ItemRunner(RunConfig(memory=["full_context"]))
    suite = runner.suite(suite_path)
    out = []
    for user in suite.users[:users]:
        assert user.task is not None, user.error
        extra = tuple(profile_statements(user.task.user_profile))
        rows = []
        for index in range(len(user.task.subtasks)):
            memory = runner.memory_for(suite, user, index, "full_context", trial=0)
            rows.append((memory.read(), extra))
        out.append(rows)
    return out


def _clear_caches() -> None:
    for name in dir(_preferences):
        cache_clear = getattr(getattr(_preferences, name), "cache_clear", None)
        if callable(cache_clear):
            cache_clear()
    reset = getattr(_preferences, "reset_memory_caches", None)
    if callable(reset):
        reset()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", nargs="?", type=Path, default=SUITE)
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--users", type=int, default=None, help="only the first N users")
    parser.add_argument("--turns", type=int, default=3, help="memory reads per item (the agent re-reads per turn)")
    parser.add_argument("--order", choices=("collection", "interleaved", "both"), default="both",
                        help="users one after another as pytest collects them, or round-robin over all users")
    parser.add_argument("--texts", type=Path, default=None,
                        help="a file of rendered memories: read it if it exists, else render and write it")
    args = parser.parse_args()

    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    started = time.perf_counter()
    if args.texts is not None and args.texts.exists():
        with gzip.open(args.texts, "rt", encoding="utf-8") as handle:
            per_user = [[(text, tuple(extra)) for text, extra in rows] for rows in json.load(handle)]
    else:
        per_user = _texts(args.suite, args.users)
        if args.texts is not None:
            with gzip.open(args.texts, "wt", encoding="utf-8") as handle:
                json.dump(per_user, handle)
    print(f"memories of {len(per_user)} users ready in {time.perf_counter() - started:.1f} s wall")

    collection = [(u, i) for u in range(len(per_user)) for i in range(len(per_user[u]))]
    longest = max(len(rows) for rows in per_user)
    interleaved = [(u, i) for i in range(longest) for u in range(len(per_user)) if i < len(per_user[u])]
    extends = sum(1 for u, i in collection if i and per_user[u][i][0].startswith(per_user[u][i - 1][0]))
    lines = [per_user[u][i][0].count("\n") + 1 for u, i in collection]
    print(f"distinct texts: {len(collection)}; lines per text median {statistics.median(lines):.0f}, "
          f"max {max(lines)}; extend the previous text: {extends}; "
          f"truncated at the front: {sum(1 for _, i in collection if i) - extends}")
    orders = {"collection": collection, "interleaved": interleaved}
    for name in ([args.order] if args.order != "both" else list(orders)):
        _measure(name, [per_user[u][i] for u, i in orders[name]], args.trials, args.turns)


def _measure(order: str, texts: list[tuple[str, tuple[str, ...]]], trials: int, turns: int) -> None:
    """Ask for each item's memory as the agent does (every trial of a subtask in turn) and print CPU per item."""
    _clear_caches()
    item_cpu: list[float] = []
    first_cpu: list[float] = []
    for text, extra in texts:
        for trial in range(trials):
            began = time.process_time()
            for _ in range(turns):
                memory = _preferences.PreferenceMemory.cached(text, extra)
                memory.polarity("oat milk")
            spent = time.process_time() - began
            item_cpu.append(spent)
            if trial == 0:
                first_cpu.append(spent)
    total = sum(item_cpu)
    print(f"[{order} order] items: {len(item_cpu)} ({trials} trials x {len(texts)} subtasks, {turns} reads each); "
          f"memory CPU per item: mean {1000 * total / len(item_cpu):.2f} ms, max {1000 * max(item_cpu):.1f} ms; "
          f"per distinct text: mean {1000 * statistics.mean(first_cpu):.2f} ms; total {total:.2f} s")

if __name__ == "__main__":
    main()
