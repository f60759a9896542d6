"""CPU the ``reference`` agent spends reading its memory, per item, on the paper-scale suite (issue 8).

    python benchmarks/bench_reference_memory.py                        # the paper suite, full_context, 4 trials
    python benchmarks/bench_reference_memory.py --trials 1 --users 8   # a quicker look

The agent turns its memory text into evidence (:class:`~pytest_vitabench.text.preferences.PreferenceMemory`)
once per distinct text and answers queries from it. This script renders every user's ``full_context`` memory
before each subtask with the real backend, then asks for each item's memory the way the agent does, in the
order a run interleaves users (round-robin over users, every trial of a subtask in turn), and prints the CPU
time (``time.process_time``) per item and per distinct text, plus the share of texts that extend an earlier
one (a growing history) and of texts the budget truncated at the front. All parse caches start cold.

A benchmark, not a test: it prints figures and asserts nothing about time. Note ``uptime`` beside them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from pytest_vitabench.config import RunConfig
from pytest_vitabench.runner import ItemRunner

try:  # the text facts moved out of agents/ (issue 11); keep the script runnable on both layouts
    from pytest_vitabench.text import preferences as _preferences
except ImportError:  # pragma: no cover - the layout before the split
    from pytest_vitabench.agents import heuristics as _preferences  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"


def _texts(suite_path: Path, users: int | None) -> list[list[tuple[str, tuple[str, ...]]]]:
    """Per user, the (memory text, profile statements) the agent reads before each subtask."""
    runner = ItemRunner(RunConfig(memory=["full_context"]))
    suite = runner.suite(suite_path)
    out = []
    for user in suite.users[:users]:
        assert user.task is not None, user.error
        extra = tuple(_preferences.profile_statements(user.task.user_profile))
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
    args = parser.parse_args()

    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    started = time.perf_counter()
    per_user = _texts(args.suite, args.users)
    print(f"rendered memories of {len(per_user)} users in {time.perf_counter() - started:.1f} s wall")

    longest = max(len(rows) for rows in per_user)
    order = [(u, i) for i in range(longest) for u in range(len(per_user)) if i < len(per_user[u])]
    texts = [per_user[u][i] for u, i in order]
    extends = sum(1 for u, i in order if i and per_user[u][i][0].startswith(per_user[u][i - 1][0]))
    truncated = sum(1 for u, i in order if i and not per_user[u][i][0].startswith(per_user[u][i - 1][0]))
    lines = [text.count("\n") + 1 for text, _ in texts]
    print(f"distinct texts: {len(texts)}; lines per text median {statistics.median(lines):.0f}, max {max(lines)}; "
          f"extend the previous text: {extends}; truncated at the front: {truncated}")

    _clear_caches()
    item_cpu: list[float] = []
    first_cpu: list[float] = []
    for text, extra in texts:
        for trial in range(args.trials):
            began = time.process_time()
            for _ in range(args.turns):
                memory = _preferences.PreferenceMemory.cached(text, extra)
                memory.polarity("oat milk")
            spent = time.process_time() - began
            item_cpu.append(spent)
            if trial == 0:
                first_cpu.append(spent)
    total = sum(item_cpu)
    print(f"items: {len(item_cpu)} ({args.trials} trials x {len(texts)} subtasks, {args.turns} reads each)")
    print(f"memory CPU per item: mean {1000 * total / len(item_cpu):.2f} ms, "
          f"median {1000 * statistics.median(item_cpu):.2f} ms, max {1000 * max(item_cpu):.1f} ms")
    print(f"memory CPU per distinct text (first read): mean {1000 * statistics.mean(first_cpu):.2f} ms")
    print(f"memory CPU total: {total:.2f} s")


if __name__ == "__main__":
    main()
