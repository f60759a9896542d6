"""Shards merged against one unsharded run: identical metrics and per-item outcomes, and the balance of work.

    python benchmarks/bench_shards.py                       # the demo and a paper-suite slice, 4 shards each
    python benchmarks/bench_shards.py --suites demo --shards 3

For each suite it runs ``pytest SUITE --vita-shard I/N`` for every shard (one after another: the machine is
shared, and the balance is measured in CPU seconds and items, which do not depend on what else runs), then
``vitabench merge``, then one unsharded run with the same seed, and prints:

* whether the merged metrics (intervals included) and every item's outcome, reward and rubric verdicts equal
  the unsharded run's;
* per shard: items, chains, the split's expected work (``pytest_vitabench.run.shard.shard_loads``) and the CPU
  seconds its process tree used; the spread (largest / mean) of items and of CPU seconds.

Settings: the offline built-ins (reference agent, scripted user, rules judge), ``--vita-trials 2`` and the
memory backends ``full_context,none`` on the demo (80 items); ``--vita-trials 1 --vita-memory full_context``
on the paper suite (the "slice": 1 trial x 1 backend of the paper's 4 x 3).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SUITES = {
    "demo": (REPO / "suites" / "demo" / "tasks.json", ["--vita-trials", "2", "--vita-memory", "full_context,none"]),
    "paper": (REPO / "suites" / "paper" / "tasks.vita.json.gz",
              ["--vita-trials", "1", "--vita-memory", "full_context"]),
}
COMMON = ["-p", "no:cacheprovider", "-q", "--vita-seed", "3", "--vita-progress", "off"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _pytest(workdir: Path, suite: Path, extra: list[str]) -> float:
    """Run pytest in ``workdir``; the CPU seconds its process used."""
    before = _children_cpu()
    subprocess.run([sys.executable, "-m", "pytest", suite.name, *COMMON, *extra], cwd=workdir,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return _children_cpu() - before


def _outcomes(report: dict[str, Any]) -> dict[str, Any]:
    return {r["nodeid"]: (r["outcome"], r["reward"], [(x["text"], x["met"]) for x in r["rubrics"]])
            for r in report["results"]}


def measure(name: str, shards: int) -> dict[str, Any]:
    suite, settings = SUITES[name]
    workdir = Path(tempfile.mkdtemp(prefix=f"vita-bench-shards-{name}-"))
    try:
        shutil.copy(suite, workdir / suite.name)
        (workdir / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
        cpu = [_pytest(workdir, suite, [*settings, "--vita-shard", f"{i}/{shards}", "--vita-run-id", "bench"])
               for i in range(1, shards + 1)]
        merged_path = workdir / "merged.json"
        subprocess.run([sys.executable, "-m", "pytest_vitabench.commands.cli", "merge",
                        str(workdir / ".vitabench/runs/bench"),
                        "-o", str(merged_path)], stdout=subprocess.DEVNULL, check=True)
        unsharded_cpu = _pytest(workdir, suite, [*settings, "--vita-shard", "off", "--vita-report", "full.json"])
        merged = json.loads(merged_path.read_text())
        full = json.loads((workdir / "full.json").read_text())
        items, chains = [], []
        for i in range(1, shards + 1):
            journal = workdir / ".vitabench/runs/bench" / f"shard-{i}-of-{shards}" / "journal"
            rows = [json.loads(line) for f in journal.glob("*.jsonl") for line in f.read_text().splitlines()]
            items.append(len(rows))
            chains.append(len({(r["user_id"], r["memory"]) for r in rows}))
        loads = _expected_loads(workdir, suite, settings, shards)
        return {"suite": name, "items": len(full["results"]), "metrics_equal": merged["metrics"] == full["metrics"],
                "outcomes_equal": _outcomes(merged) == _outcomes(full),
                "failures_equal": merged.get("failures") == full.get("failures"),
                "per_shard_items": items, "per_shard_chains": chains, "per_shard_expected_work": loads,
                "per_shard_cpu_s": [round(c, 2) for c in cpu], "unsharded_cpu_s": round(unsharded_cpu, 2),
                "items_spread": round(max(items) / (sum(items) / shards), 3),
                "cpu_spread": round(max(cpu) / (sum(cpu) / shards), 3)}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _expected_loads(workdir: Path, suite: Path, settings: list[str], shards: int) -> list[float]:
    """The split's own weights, from the suite's outline (the plugin weighs the chains the same way)."""
    from pytest_vitabench.run.shard import Chain, shard_loads
    from pytest_vitabench.suite.loader import load_suite

    memory = settings[settings.index("--vita-memory") + 1].split(",")
    trials = int(settings[settings.index("--vita-trials") + 1])
    loaded = load_suite(workdir / suite.name, lazy=True)
    chains = [Chain((str(workdir / suite.name), user.key, backend), len(user.outline) * trials,
                    user.span[1] - user.span[0] if user.span else 0)
              for user in loaded.users for backend in memory]
    return [round(load, 1) for load in shard_loads(chains, shards)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suites", default="demo,paper", help="comma-separated: demo, paper")
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores; the machine may be shared)")
    for name in args.suites.split(","):
        print(json.dumps(measure(name.strip(), args.shards)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
