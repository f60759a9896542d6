"""CPU per LLM request under ``--vita-profile official`` with realistic prompts, and the startup CPU.

    VITA_OFFICIAL_PYTHON=... python benchmarks/cpu_per_request.py --repeat 3
    python benchmarks/cpu_per_request.py --python /other/tree/.venv/bin/python,.venv/bin/python --repeat 3
    python benchmarks/cpu_per_request.py --profile            # py-spy's table by package (pip install py-spy)
    python benchmarks/cpu_per_request.py --floor              # and the openai client alone on the same requests
    VITA_OFFICIAL_PYTHON=... python benchmarks/cpu_per_request.py --official --repeat 3   # wall time vs the floor

The workload: the first 10 users x 10 subtasks of ``suites/paper`` (100 subtasks, 1 trial), memory
``full_context`` (the whole memory text in the agent's prompt, near the cl100k budget), the official profile
with the official source and models.yaml, the sliding-window judge, against the side-by-side role stub
(``tests/_side_by_side.py``: the agent calls a search tool, asks, stops) answering in 200 ms, 10 in flight.

CPU is the pytest process's own (user + system, from ``wait4``): the run's minus a ``--collect-only`` run's
(imports, collection, reading the official source), divided by the requests the stub received. The dev
extra's pytest plugins are disabled, as in ``profile_requests.py`` (a user's install has none of them). With several
pythons (each tree's venv) the runs alternate, so a busy machine weighs on each alike; medians are printed.

``--official`` also runs the official harness (``vita run --max-concurrency`` the same) on the same workload and
stub in each round, and prints both harnesses' wall time against the floor: the longest user's chain of requests
(its subtasks run one after another) times the stub's latency. Each user's chain is counted once, by running our
plugin on that user alone against the stub without latency.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "benchmarks")]

import _side_by_side as sbs  # noqa: E402
import client_floor  # noqa: E402
from bench_paper import child_env, user_install_args  # noqa: E402
from profile_requests import _group  # noqa: E402


def _command(python: str, stub_url: str, work: Path, memory: str, concurrency: int) -> list[str]:
    return [python, "-m", "pytest", "tasks.json", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--tb=no",
            "--rootdir", str(work), "--vita-profile", "official", "--vita-model", sbs.AGENT,
            "--vita-user-model", sbs.USER, "--vita-judge-model", sbs.JUDGE, "--vita-base-url", stub_url,
            "--vita-memory", memory, "--vita-trials", "1", "--vita-concurrency", str(concurrency),
            "--vita-cache", "off", "--vita-progress", "off", "--vita-official-source", str(sbs.OFFICIAL_SOURCE),
            "--vita-official-models", str(work / "models.yaml"), *user_install_args(False)]


def _client_floor(python: str, bodies: list[dict[str, Any]], base_url: str, concurrency: int, work: Path
                  ) -> dict[str, float]:
    """client_floor.py's figures from threads, with ``async ms``: the same through AsyncOpenAI."""
    figures = client_floor.measure(python, bodies, base_url, concurrency, work)
    figures["async ms"] = client_floor.measure(python, bodies, base_url, concurrency, work,
                                               asynchronous=True)["ms_per_request"]
    return figures


def _run(command: list[str], work: Path, spy_output: Path | None = None, env: dict[str, str] | None = None
         ) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, peak RSS in MB) of one pytest run (py-spy's when profiled)."""
    if spy_output is not None:
        spy = next((str(p) for p in (Path(command[0]).parent / "py-spy", Path(sys.executable).parent / "py-spy")
                    if p.exists()), None) or shutil.which("py-spy") or "py-spy"
        command = [spy, "record", "--rate", "250", "--gil", "--format", "raw", "--output", str(spy_output), "--",
                   *command]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env or child_env({"OPENAI_API_KEY": "dummy-key", "NO_PROXY": "127.0.0.1"}))
    peak_kb = 0
    while True:  # the peak from /proc: wait4's ru_maxrss counts the pages the child shared with us before exec
        try:
            status_text = Path(f"/proc/{process.pid}/status").read_text()
            peak_kb = max(peak_kb, int(status_text.split("VmHWM:", 1)[1].split()[0]))
        except (OSError, IndexError):
            pass
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.05)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"run failed ({status}): {' '.join(command)}")
    return usage.ru_utime + usage.ru_stime, wall, peak_kb // 1024


def _user_chains(python: str, tasks: list[dict], work: Path, memory: str, questions: int) -> list[int]:
    """Requests each user's subtasks send one after another (our plugin on that user alone, no latency)."""
    stub = sbs.role_stub(questions)
    chains = []
    try:
        for index, user in enumerate(tasks):
            alone = work / f"user{index}"
            alone.mkdir()
            (alone / "tasks.json").write_text(json.dumps([user], ensure_ascii=False))
            sbs.write_models_yaml(alone / "models.yaml", stub.base_url)
            stub.requests.clear()
            _run(_command(python, stub.base_url, alone, memory, 1), alone)
            chains.append(len(stub.requests))
    finally:
        stub.close()
    return chains


def _identical(ours: sbs.Run, theirs: sbs.Run) -> str:
    """Per role, how many of our requests the official harness also sent, in any order (episodes in flight
    interleave differently in the two runs)."""
    def bodies(run: sbs.Run) -> dict[str, collections.Counter[str]]:
        return {role: collections.Counter(json.dumps(sbs.memory_tools_sorted(b), sort_keys=True) for b in found)
                for role, found in run.by_role().items()}

    mine, official = bodies(ours), bodies(theirs)
    lines = []
    for role in sorted(set(mine) | set(official)):
        a, b = mine.get(role, collections.Counter()), official.get(role, collections.Counter())
        lines.append(f"  {role}: identical {sum((a & b).values())} of {sum(a.values())} "
                     f"(official: {sum(b.values())})")
    return "requests, ours and the official harness's, compared as sets:\n" + "\n".join(lines)


def _run_official(tasks: list[dict], tmp: Path, stub_url: str, memory: str, concurrency: int
                  ) -> tuple[float, float, int]:
    command, env, root = sbs.official_command(tasks, tmp, stub_url, memory=memory, concurrency=concurrency)
    return _run(command, root, env=env)


def by_package(raw: Path, top: int = 15) -> str:
    """py-spy's raw samples (self time of the innermost frame) grouped by package, as percentages."""
    groups: collections.Counter[str] = collections.Counter()
    functions: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        frames = [f for f in stack.split(";") if not f.startswith(("thread (", "process "))]
        if not frames or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        groups[_group(frames[-1])] += count
        functions[frames[-1]] += count
    lines = [f"{total} samples (250 Hz, the whole run, the thread holding the GIL)"]
    lines += [f"  {100 * n / total:5.1f}%  {name}" for name, n in groups.most_common(top)]
    lines.append("functions by self time:")
    lines += [f"  {100 * n / total:5.1f}%  {name}" for name, n in functions.most_common(top)]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="comma-separated interpreters (one per tree)")
    parser.add_argument("--memory", default="full_context")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--subtasks", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="one more run per python under py-spy")
    parser.add_argument("--questions", type=int, default=1,
                        help="questions the stub's agent asks per subtask (3: about 820 requests, the issue's scale)")
    parser.add_argument("--floor", action="store_true",
                        help="also send each run's requests through a bare openai client (client_floor.py)")
    parser.add_argument("--official", action="store_true",
                        help="also run the official harness each round; print wall time against the floor")
    args = parser.parse_args()
    reason = sbs.skip_reason()
    if reason and (args.official or "VITA_OFFICIAL_PYTHON" not in reason):
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    pythons = args.python.split(",")
    tasks = sbs.paper_slice(args.users, args.subtasks)
    stub = sbs.role_stub(args.questions)
    stub.delay = args.latency
    tmp = Path(tempfile.mkdtemp(prefix="vita-cpu-"))
    works = {}
    for i, python in enumerate(pythons):
        work = works[python] = tmp / f"tree{i}"
        work.mkdir()
        (work / "tasks.json").write_text(json.dumps(tasks, ensure_ascii=False))
        sbs.write_models_yaml(work / "models.yaml", stub.base_url)
        # warm-up: bytecode and the suite's index
        _run(_command(python, stub.base_url, work, args.memory, args.concurrency) + ["--collect-only"], work)
    results: dict[str, dict[str, list[float]]] = {p: collections.defaultdict(list) for p in pythons}
    floor = None
    if args.official:
        chains = _user_chains(pythons[0], tasks, tmp, args.memory, args.questions)
        floor = max(chains) * args.latency
        print(f"requests per user's chain: {chains}; floor {max(chains)} x {args.latency:g} s = {floor:.1f} s")
        results["official"] = collections.defaultdict(list)
    load = os.getloadavg()[0]
    first_round: dict[str, sbs.Run] = {}
    try:
        for _ in range(args.repeat):
            for python in pythons:
                command = _command(python, stub.base_url, works[python], args.memory, args.concurrency)
                collect, _, _ = _run(command + ["--collect-only"], works[python])
                cpu, wall, rss = _run(command, works[python])
                requests = len(stub.requests)
                if args.official:  # compared with the official harness's requests below
                    first_round.setdefault(python, sbs.Run(sbs.recorded(stub), wall, 0))
                # the same requests through a bare client, to the same stub
                floor_figures = _client_floor(python, stub.requests[:requests], stub.base_url, args.concurrency,
                                              works[python]) if args.floor else None
                for recorded in (stub.requests, stub.headers, stub.paths):
                    recorded.clear()  # a big parent would be the child's too until it execs
                row = results[python]
                row["startup"].append(collect)
                row["ms"].append(1000 * (cpu - collect) / requests)
                row["cpu"].append(cpu)
                row["wall"].append(wall)
                row["rss"].append(rss)
                row["requests"].append(requests)
                row["ratio"].append(wall / floor if floor else 0.0)
                if floor_figures is not None:
                    row["client ms"].append(floor_figures["ms_per_request"])
                    row["client import"].append(floor_figures["import_s"] + floor_figures["client_s"])
                    row["client async ms"].append(floor_figures["async ms"])
                    print(f"  the openai client alone: {floor_figures['ms_per_request']:.2f} ms per request "
                          f"(AsyncOpenAI: {floor_figures['async ms']:.2f}), import and build "
                          f"{row['client import'][-1]:.2f} s", flush=True)
                print(f"  {python}: {requests} requests, CPU {cpu:.2f} s, collect-only {collect:.2f} s, "
                      f"{1000 * (cpu - collect) / requests:.2f} ms per request, wall {wall:.1f} s, "
                      f"peak RSS {rss} MB", flush=True)
            if args.official:
                cpu, wall, rss = _run_official(tasks, tmp / "official", stub.base_url, args.memory, args.concurrency)
                requests = len(stub.requests)
                if "official" not in first_round:
                    first_round["official"] = sbs.Run(sbs.recorded(stub), wall, 0)
                    print(_identical(first_round[pythons[-1]], first_round["official"]))
                for recorded in (stub.requests, stub.headers, stub.paths):
                    recorded.clear()
                row = results["official"]
                for key, value in (("cpu", cpu), ("wall", wall), ("rss", rss), ("requests", requests),
                                   ("ratio", wall / floor)):
                    row[key].append(value)
                print(f"  official harness: {requests} requests, CPU {cpu:.2f} s, wall {wall:.1f} s, "
                      f"peak RSS {rss} MB", flush=True)
        print(f"\nmemory {args.memory}, {args.users} users x {args.subtasks} subtasks, {args.questions} question(s) "
              "per subtask, official profile, stub "
              f"{args.latency:g} s, {args.concurrency} in flight; load average at start {load:.1f} on "
              f"{os.cpu_count()} cores; medians of {args.repeat} alternating runs")
        print("| python | requests | startup CPU s (--collect-only) | CPU ms per request | run CPU s | wall s | "
              "peak RSS MB |\n|---|---|---|---|---|---|---|")
        for python, row in results.items():
            if not row:
                continue
            med = {key: statistics.median(values) for key, values in row.items()}
            startup, per_request = (f"{med['startup']:.2f}", f"{med['ms']:.2f}") if "ms" in med else ("", "")
            wall = f"{med['wall']:.1f}" + (f" ({med['ratio']:.2f}x the floor)" if floor else "")
            print(f"| {python} | {med['requests']:.0f} | {startup} | {per_request} | {med['cpu']:.2f} "
                  f"| {wall} | {med['rss']:.0f} |")
        for python, row in results.items():
            if row.get("client ms"):
                ms, imported = statistics.median(row["client ms"]), statistics.median(row["client import"])
                requests = statistics.median(row["requests"])
                print(f"the openai client alone on {python}'s requests (client_floor.py, medians): {ms:.2f} ms per "
                      f"request + {imported:.2f} s to import and build it = "
                      f"{ms + 1000 * imported / requests:.2f} ms per request of the run's figure; through "
                      f"AsyncOpenAI on one event loop {statistics.median(row['client async ms']):.2f} ms per request")
        if args.profile:
            for python in pythons:
                raw = Path(tempfile.gettempdir()) / f"vita-spy-{Path(python).parents[2].name}.txt"
                _run(_command(python, stub.base_url, works[python], args.memory, args.concurrency), works[python],
                     raw)
                print(f"\npy-spy, {python}:\n{by_package(raw)}")
    finally:
        stub.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
