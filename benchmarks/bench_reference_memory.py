"""CPU the ``reference`` agent spends reading one memory text, on the paper-scale suite.

    python benchmarks/bench_reference_memory.py                        # the paper suite, full_context
    python benchmarks/bench_reference_memory.py --users 8              # a quicker look
    python benchmarks/bench_reference_memory.py --texts /tmp/texts.json.gz   # render once, reuse (before/after)

The agent turns its memory text into evidence (:class:`~pytest_vitabench.text.preferences.PreferenceMemory`)
once per ranking, and remembers the ranking for the later turns and trials of the subtask (its one memo). This
script renders every user's ``full_context`` memory before each subtask with the real backend and reads each
text once, as a ranking does, then asks one question of it. It prints the CPU time (``time.process_time``) per
text: what a subtask's first ranking pays for its memory.

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

from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.runner import ItemRunner
from pytest_vitabench.text.clauses import profile_statements
from pytest_vitabench.text.preferences import PreferenceMemory

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", nargs="?", type=Path, default=SUITE)
    parser.add_argument("--users", type=int, default=None, help="only the first N users")
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

    texts = [row for rows in per_user for row in rows]
    lines = [text.count("\n") + 1 for text, _ in texts]
    cpu = []
    for text, extra in texts:
        began = time.process_time()
        PreferenceMemory(text, extra).polarity("oat milk")
        cpu.append(time.process_time() - began)
    print(f"distinct texts: {len(texts)}; lines per text median {statistics.median(lines):.0f}, max {max(lines)}; "
          f"CPU per text: median {1000 * statistics.median(cpu):.2f} ms, mean {1000 * statistics.mean(cpu):.2f} ms, "
          f"max {1000 * max(cpu):.1f} ms; total {sum(cpu):.2f} s")


if __name__ == "__main__":
    main()
