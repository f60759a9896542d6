"""Measure the paper-scale suite under pytest-xdist: wall time, collection time, peak memory per process.

    python benchmarks/bench_paper.py                         # reference agent, full_context, 4 trials, -n 2
    python benchmarks/bench_paper.py --model groundtruth-reader,literal,reference --memory none,groundtruth,full_context
    python benchmarks/bench_paper.py --repeat 3 --json bench.json

Targets (issue 8, on a 2-core machine, 3,136 items, ``-n 2``, full_context): wall at most 30 s, collection at
most 3 s, at most 300 MB per worker; each figure is printed next to its target. The controller's peak
resident memory is printed too (results travel to it as summaries; trajectories stay in the run directory).

Each configuration runs ``pytest SUITE -n WORKERS`` in a subprocess (so nothing is warm in this process)
with the pytest plugins a user's install has (those only the ``dev`` extra brings are disabled, see
``DEV_ONLY_PLUGINS``; ``--dev-plugins`` keeps them),
samples ``/proc/<pid>/status`` of the run's process tree every 50 ms for the resident set of each process
(the controller and every xdist worker), and times ``pytest --collect-only`` separately. Figures are the
median of ``--repeat`` runs. A benchmark, not a test: timing assertions do not belong in the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"
TARGET_WALL_S = 30.0
TARGET_COLLECT_S = 3.0
TARGET_WORKER_MB = 300.0


@dataclass
class Run:
    """One measured pytest run."""

    model: str
    memory: str
    wall_s: float
    items: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    controller_mb: float = 0.0
    workers_mb: list[float] = field(default_factory=list)
    exit_code: int = 0
    #: User + system CPU of the whole process tree (controller and workers): load-independent, unlike wall.
    cpu_s: float = 0.0


#: The pytest plugins (entry-point names) of hypothesis and pytest-asyncio, which the project's ``dev`` extra
#: installs for its own test suite and ``pip install pytest-vitabench`` does not. The hypothesis plugin alone
#: imports all of hypothesis at every session's end, ~0.3 s after the last item.
DEV_ONLY_PLUGINS = ("hypothesispytest", "asyncio")


def user_install_args(keep_dev_plugins: bool = False) -> list[str]:
    """``-p no:NAME`` for each installed dev-only pytest plugin, unless they are kept."""
    if keep_dev_plugins:
        return []
    from importlib.metadata import entry_points

    present = {entry.name for entry in entry_points(group="pytest11")}
    return [arg for name in DEV_ONLY_PLUGINS if name in present for arg in ("-p", f"no:{name}")]


def plugins_note(keep_dev_plugins: bool) -> str:
    """What the measured runs loaded, for the report's first line."""
    disabled = [arg.removeprefix("no:") for arg in user_install_args(keep_dev_plugins)[1::2]]
    return f"dev-only pytest plugins disabled: {', '.join(disabled)}" if disabled else "every installed pytest plugin"


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a measured run: this one, but with bytecode caching on.

    ``PYTHONDONTWRITEBYTECODE`` (set in some containers and CI images) makes every run compile the plugin,
    pytest's assertion rewriting of it and hypothesis from source again: 2-3 s of each collection that an
    installed package (compiled by pip) or any second run never pays. Measure what users see.
    """
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **(extra or {})}


def warm_bytecode() -> None:
    """Run the demo suite once so that every module's bytecode (plain and assertion-rewritten) is cached."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set here; measured runs unset it (see child_env) after one "
              "warm-up run of suites/demo", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pytest", str(REPO / "suites" / "demo"), "-q", "-p", "no:cacheprovider",
                    "--vita-trials", "1"], cwd=REPO, env=child_env(), capture_output=True, check=False)


def _children(root: int) -> list[int]:
    """Every descendant of ``root`` (from /proc, Linux only)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            parents.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        for child in parents.get(pid, []):
            out.append(child)
            todo.append(child)
    return out


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_once(suite: Path, model: str, memory: str, workers: int, trials: int, extra: list[str]) -> Run:
    command = [sys.executable, "-m", "pytest", str(suite), "-p", "no:cacheprovider", "-q", "--tb=no", "-rN",
               "-n", str(workers), "--vita-model", model, "--vita-memory", memory, "--vita-trials", str(trials),
               *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=child_env())
    peaks: dict[int, float] = {}
    while process.poll() is None:
        for pid in [process.pid, *_children(process.pid)]:
            peaks[pid] = max(peaks.get(pid, 0.0), _rss_mb(pid))
        time.sleep(0.05)
    output = process.stdout.read() if process.stdout else ""
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    run = Run(model=model, memory=memory, wall_s=round(wall, 2), exit_code=process.returncode, cpu_s=round(cpu, 2))
    summary = re.search(r"items: (\d+) passed, (\d+) failed, (\d+) error", output)
    if summary:
        run.passed, run.failed, run.errors = (int(x) for x in summary.groups())
        run.items = run.passed + run.failed + run.errors
    run.controller_mb = round(peaks.pop(process.pid, 0.0), 1)
    # xdist workers are the run's python children (the controller may spawn nothing else).
    run.workers_mb = sorted((round(mb, 1) for pid, mb in peaks.items() if mb > 50), reverse=True)[:workers]
    if run.items == 0:
        print(output[-2000:], file=sys.stderr)
    return run


def collect_once(suite: Path, memory: str, trials: int, extra: list[str]) -> tuple[float, float]:
    """Wall time of ``pytest --collect-only`` (process start to exit) and the number of items collected."""
    command = [sys.executable, "-m", "pytest", str(suite), "-p", "no:cacheprovider", "--collect-only", "-qq",
               "--vita-memory", memory, "--vita-trials", str(trials), *extra]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False, env=child_env())
    wall = time.perf_counter() - started
    items = sum(int(m) for m in re.findall(r": (\d+)$", result.stdout, re.M))
    return round(wall, 2), float(items)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", type=Path, default=SUITE)
    parser.add_argument("--model", default="reference", help="comma-separated built-in agents")
    parser.add_argument("--memory", default="full_context", help="the --vita-memory value of each run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (the median is reported)")
    parser.add_argument("--collect-repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None, help="write every measurement here")
    parser.add_argument("--dev-plugins", action="store_true",
                        help="keep the pytest plugins of the dev extra (hypothesis, pytest-asyncio) loaded")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    if not args.suite.exists():
        print(f"{args.suite} not found; generate it: vitabench synth --preset paper -o {args.suite}", file=sys.stderr)
        return 2
    warm_bytecode()
    extra = [*user_install_args(args.dev_plugins), *args.pytest_args]
    collections = [collect_once(args.suite, args.memory, args.trials, extra) for _ in range(args.collect_repeat)]
    runs: list[Run] = []
    rows = []
    for model in args.model.split(","):
        repeats = [run_once(args.suite, model, args.memory, args.workers, args.trials, extra)
                   for _ in range(args.repeat)]
        runs += repeats
        median = sorted(repeats, key=lambda r: r.wall_s)[len(repeats) // 2]
        rows.append(median)
    print(f"suite {args.suite.relative_to(REPO) if args.suite.is_relative_to(REPO) else args.suite}, "
          f"-n {args.workers}, {args.trials} trials, memory {args.memory}, median of {args.repeat} run(s)"
          "; "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {plugins_note(args.dev_plugins)}")
    walls = [c[0] for c in collections]
    inner = [c[1] for c in collections]
    print(f"collection (--collect-only, median of {len(collections)}): {statistics.median(walls):.2f}s wall for "
          f"{int(statistics.median(inner))} items (interpreter start and imports included)")
    print(f"{'model':10s} {'items':>6s} {'passed':>7s} {'wall s':>8s} {'items/s':>8s} {'CPU s':>7s} "
          f"{'CPU ms/item':>11s} {'controller MB':>14s} {'per worker MB':>16s}")
    for run in rows:
        rate = run.items / run.wall_s if run.wall_s else 0
        print(f"{run.model:10s} {run.items:6d} {run.passed:7d} {run.wall_s:8.1f} {rate:8.1f} {run.cpu_s:7.1f} "
              f"{1000 * run.cpu_s / max(run.items, 1):11.1f} "
              f"{run.controller_mb:14.0f} {', '.join(f'{mb:.0f}' for mb in run.workers_mb):>16s}")
    median_collection = statistics.median(walls)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (targets assume an otherwise idle machine)")
    for run in rows:
        worst_worker = max(run.workers_mb or [0.0])
        print(f"targets ({run.model}): wall {run.wall_s:.1f} s (<= {TARGET_WALL_S:g}: "
              f"{'met' if run.wall_s <= TARGET_WALL_S else 'missed'}), collection {median_collection:.2f} s "
              f"(<= {TARGET_COLLECT_S:g}: {'met' if median_collection <= TARGET_COLLECT_S else 'missed'}), "
              f"worker peak {worst_worker:.0f} MB (<= {TARGET_WORKER_MB:g}: "
              f"{'met' if worst_worker <= TARGET_WORKER_MB else 'missed'}), controller peak {run.controller_mb:.0f} MB")
    if args.json:
        args.json.write_text(json.dumps({"collection": collections, "runs": [asdict(r) for r in runs]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
