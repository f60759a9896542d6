"""What one item's environment costs to build, now and at a baseline revision, in one process.

    python benchmarks/domain_build_cost.py                          # against the revision before declared tools
    python benchmarks/domain_build_cost.py --baseline-rev main~3 --rounds 2000
    python benchmarks/domain_build_cost.py --baseline-rev ''        # the current code only

For one real subtask per domain (the paper suite's first), it builds the environment ``--rounds`` times,
alternating the current ``pytest_vitabench.domains`` with the baseline's (extracted with ``git archive``
and imported as a separate top-level package, so both run in the same process under the same load), and
prints median microseconds of:

* ``build``: ``build_environment`` (database deep copy + validation + the tool set);
* ``tool set``: binding the tools to an already built environment (what is rebuilt per item beyond the
  database: the shared and domain tools, their schemas and validators as far as they are rebuilt);
* ``schemas``: ``tool_schemas()`` (what the agent is sent).

Note the machine's load (printed) beside any figure.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from functools import partial
from io import BytesIO
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest_vitabench.domains as current
from pytest_vitabench.suite.loader import load_suite

ROOT = Path(__file__).resolve().parents[1]
#: The last revision with closure-factory tools and hand-written schemas.
DEFAULT_BASELINE = "1535474"


def baseline_domains(rev: str, into: Path) -> ModuleType:
    """The ``domains`` package of ``rev``, imported as the top-level package ``domains``."""
    archive = subprocess.run(["git", "archive", rev, "pytest_vitabench/domains"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    sys.path.insert(0, str(into / "pytest_vitabench"))
    return importlib.import_module("domains")


def bind_tools(package: ModuleType, env: Any, names: list[str]) -> Callable[[], list[Any]]:
    """A callable that binds the shared and domain tools to ``env`` anew, for either generation of code."""
    if hasattr(package, "domain_spec"):  # declared tools
        shared = importlib.import_module(f"{package.__name__}.shared_tools").SharedTools
        specs = [package.domain_spec(name) for name in names]
        return lambda: [*shared(env).tools(), *(t for spec in specs for t in spec.tools(env).tools())]
    shared_tools = importlib.import_module(f"{package.__name__}.shared").shared_tools
    modules = [importlib.import_module(f"{package.__name__}.{name}") for name in names]
    return lambda: [*shared_tools(env), *(t for module in modules for t in module.domain_tools(env))]


def first_subtasks(path: Path) -> dict[str, tuple[Any, str, str]]:
    """One ``(subtask, user id, time)`` per single domain, the first found in the suite."""
    found: dict[str, tuple[Any, str, str]] = {}
    for user in load_suite(path).users:
        task = user.task
        if task is None:
            continue
        for index, sub in enumerate(task.subtasks):
            if "," not in sub.domain and sub.domain not in found:
                found[sub.domain] = (sub, str(sub.environment.get("user_id") or task.user_id), user.times[index])
    return found


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", nargs="?", default=str(ROOT / "suites" / "paper" / "tasks.vita.json.gz"))
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--baseline-rev", default=DEFAULT_BASELINE, help="git revision to compare with; '' for none")
    args = parser.parse_args()
    packages = {"now": current}
    with tempfile.TemporaryDirectory() as tmp:
        if args.baseline_rev:
            packages = {"before": baseline_domains(args.baseline_rev, Path(tmp)), **packages}
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; rounds: {args.rounds}; "
              f"baseline: {args.baseline_rev or 'none'}")
        print(f"{'domain':9} {'code':7} {'build µs':>9} {'tool set µs':>12} {'schemas µs':>11} {'tools':>6}")
        for domain, (sub, user_id, when) in sorted(first_subtasks(Path(args.suite)).items()):
            samples: dict[str, dict[str, list[float]]] = {}
            steps: dict[str, dict[str, Callable[[], Any]]] = {}
            sizes: dict[str, int] = {}
            for label, package in packages.items():
                build = partial(package.build_environment, domain, sub.environment, user_id=user_id, time=when,
                                seed=1)
                env = build()  # warm imports and per-class caches before timing
                steps[label] = {"build": build, "tool set": bind_tools(package, env, [domain]),
                                "schemas": env.tool_schemas}
                samples[label] = {step: [] for step in steps[label]}
                sizes[label] = len(env.tools)
            for _ in range(args.rounds):  # alternate, so both see the same load
                for label in packages:
                    for step, fn in steps[label].items():
                        samples[label][step].append(timed(fn))
            for label in packages:
                med = {step: statistics.median(values) for step, values in samples[label].items()}
                print(f"{domain:9} {label:7} {med['build']:9.1f} {med['tool set']:12.1f} {med['schemas']:11.1f} "
                      f"{sizes[label]:6d}")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
