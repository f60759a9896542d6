"""What one item's environment costs to build: database copy + validation, tool set, tool schemas.

    python benchmarks/domain_build_cost.py                 # one subtask per domain of the paper suite
    python benchmarks/domain_build_cost.py --rounds 2000

For each domain it builds the environment of one real subtask ``--rounds`` times and prints median
microseconds of: ``load_db`` alone (deep copy + pydantic validation: the part every item must pay),
``build_environment`` (that plus the tool set), their difference (the tool set's own cost), and
``tool_schemas()`` (what the agent is sent). Works on the code before and after the declarative tools
(both keep ``domains.shared.load_db``), so the figures of one run compare. Note ``uptime`` beside them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_vitabench.domains import build_environment, split_domains
from pytest_vitabench.domains.shared import load_db
from pytest_vitabench.suite.loader import load_suite

ROOT = Path(__file__).resolve().parents[1]


def median_us(fn: Callable[[], Any], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def first_subtasks(path: Path) -> dict[str, tuple[Any, str, str]]:
    """One ``(subtask, user id, time)`` per single domain, the first found in the suite."""
    found: dict[str, tuple[Any, str, str]] = {}
    for user in load_suite(path).users:
        task = user.task
        for index, sub in enumerate(task.subtasks if task else []):
            if "," not in sub.domain and sub.domain not in found:
                found[sub.domain] = (sub, str(sub.environment.get("user_id") or task.user_id), user.times[index])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", nargs="?", default=str(ROOT / "suites" / "paper" / "tasks.vita.json.gz"))
    parser.add_argument("--rounds", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; rounds: {args.rounds}")
    print(f"{'domain':10} {'load_db µs':>11} {'build µs':>10} {'tool set µs':>12} {'schemas µs':>11} {'tools':>6}")
    for domain, (sub, user_id, when) in sorted(first_subtasks(Path(args.suite)).items()):
        def build() -> Any:
            return build_environment(domain, sub.environment, user_id=user_id, time=when, seed=1)

        db_model = __import__(f"pytest_vitabench.domains.{split_domains(domain)[0]}", fromlist=["DB"]).DB
        build()  # warm imports and caches before timing
        copy_only = median_us(lambda: load_db(db_model, sub.environment, user_id=user_id, time=when), args.rounds)
        full = median_us(build, args.rounds)
        env = build()
        schemas = median_us(env.tool_schemas, args.rounds)
        print(f"{domain:10} {copy_only:11.1f} {full:10.1f} {full - copy_only:12.1f} {schemas:11.1f} "
              f"{len(env.tools):6d}")


if __name__ == "__main__":
    main()
