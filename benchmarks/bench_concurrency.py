"""Latency-bound run of the paper suite against a stub LLM: how close to the latency bound, how many requests
in flight, how much memory.

    python benchmarks/bench_concurrency.py                  # both configurations of issue 8
    python benchmarks/bench_concurrency.py --latency 0.5 --configs "1x32,2x16"
    python benchmarks/bench_concurrency.py --crash           # kill -9 at half of the 1x32 run, then --vita-resume
    python benchmarks/bench_concurrency.py --configs 2x16 --repeat 7   # a series, and its median

An OpenAI-compatible stub (tests/_stub_llm.py) on 127.0.0.1 answers every request after a fixed latency:
the first turn of an episode with a call to a tool that does not exist, the second with ``###STOP###``, so
every item makes exactly 2 agent requests. Each configuration runs ``pytest suites/paper`` in a subprocess
with ``--vita-trials 1 --vita-memory none --vita-cache off`` (784 items), ``WORKERSxCONCURRENCY`` meaning
``-n WORKERS --vita-concurrency CONCURRENCY`` (``1x32``: no xdist). Printed per configuration:

* wall time (process start to exit) and the latency bound: requests x latency / total concurrency, or the
  longest item (2 x latency) if larger; their ratio (target: at most 1.25);
* the span from the first request to the last answer, i.e. the run without interpreter start and
  collection, against the same bound;
* the stub's peak number of requests in flight (target: the total concurrency);
* the peak resident memory of the whole pytest process tree (controller and workers, sampled every 50 ms;
  target: under 1 GB), and the machine's load average at the start, since the machine may be shared.

pytest runs with the plugins a user's install has: the pytest plugins that only the project's ``dev`` extra
brings (its own test suite's tools, see ``bench_paper.DEV_ONLY_PLUGINS``) are disabled with ``-p no:NAME``;
``--dev-plugins`` keeps them. With ``--repeat N`` the configurations run N times, interleaved, and the
median wall time of each is printed last.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"
sys.path[:0] = [str(REPO / "tests"), str(REPO / "benchmarks")]

from _stub_llm import StubLLM, tool_call  # noqa: E402
from bench_paper import _children, _rss_mb, child_env, plugins_note, user_install_args, warm_bytecode  # noqa: E402

REQUESTS_PER_ITEM = 2


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if not any(m.get("role") == "tool" for m in request["messages"]):
        return {"tool_calls": [tool_call("c1", "no_such_tool", {})]}
    return {"content": "Nothing more I can do. ###STOP###"}


def run_config(stub: StubLLM, workers: int, concurrency: int, trials: int, extra: list[str]) -> dict[str, Any]:
    stub.requests.clear()
    stub.spans.clear()
    stub.times.clear()
    stub.peak_live = 0
    stub.replies[:] = [answer] * 20_000
    command = [sys.executable, "-m", "pytest", str(SUITE), "-p", "no:cacheprovider", "-q", "--tb=no", "-rN",
               "--vita-model", "stub-model", "--vita-base-url", stub.base_url, "--vita-memory", "none",
               "--vita-trials", str(trials), "--vita-cache", "off", "--vita-concurrency", str(concurrency), *extra]
    if workers > 1:
        command += ["-n", str(workers)]
    load = os.getloadavg()[0]
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process_before, sampler_before = time.process_time(), time.thread_time()
    started = time.time()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=child_env({"OPENAI_API_KEY": "local"}))
    peak_mb = 0.0
    while process.poll() is None:
        peak_mb = max(peak_mb, sum(_rss_mb(pid) for pid in [process.pid, *_children(process.pid)]))
        time.sleep(0.05)
    wall = time.time() - started
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # The pytest tree's CPU (controller and the xdist workers it reaped); the stub runs in this process's
    # threads, so its CPU is this process's minus the sampling loop's (this thread's).
    tree_cpu = (children_after.ru_utime - children_before.ru_utime
                + children_after.ru_stime - children_before.ru_stime)
    stub_cpu = (time.process_time() - process_before) - (time.thread_time() - sampler_before)
    output = process.stdout.read() if process.stdout else ""
    items = sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed|error)", output.splitlines()[-1] if output else ""))
    requests = len(stub.requests)
    total = workers * concurrency
    bound = max(requests * stub.delay / total, REQUESTS_PER_ITEM * stub.delay)
    span = (max(end for _, end in stub.spans) - min(stub.times)) if stub.spans else 0.0
    if items == 0:
        print(output[-3000:], file=sys.stderr)
    return {"config": f"-n {workers} x {concurrency}" if workers > 1 else f"1 process x {concurrency}",
            "items": items, "requests": requests, "wall_s": wall, "bound_s": bound, "span_s": span,
            "peak_in_flight": stub.peak_live, "total_concurrency": total, "peak_tree_mb": peak_mb,
            "startup_s": (min(stub.times) - started) if stub.times else 0.0, "load": load,
            "tree_cpu_s": tree_cpu, "stub_cpu_s": stub_cpu}


def crash_and_resume(stub: StubLLM, concurrency: int, trials: int, workdir: Path, extra: list[str]) -> None:
    """kill -9 the controller when half of the items are journaled, resume, compare with an uninterrupted run."""
    import json
    import shutil
    import signal

    for name in ("crashed", "fresh"):
        shutil.rmtree(workdir / name, ignore_errors=True)
        (workdir / name).mkdir(parents=True)
        shutil.copy(SUITE, workdir / name / SUITE.name)
    base = [sys.executable, "-m", "pytest", SUITE.name, "-p", "no:cacheprovider", "-q", "--tb=no", "-rN",
            "--vita-model", "stub-model", "--vita-base-url", stub.base_url, "--vita-memory", "none",
            "--vita-trials", str(trials), "--vita-cache", "off", "--vita-concurrency", str(concurrency), *extra]
    env = child_env({"OPENAI_API_KEY": "local"})
    stub.replies[:] = [answer] * 20_000
    stub.requests.clear()
    victim = subprocess.Popen(base, cwd=workdir / "crashed", env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)

    def journaled() -> int:
        return sum(len(f.read_bytes().splitlines()) for f in (workdir / "crashed").glob(".vitabench/runs/*/journal/*"))

    planned = 784 * trials
    while victim.poll() is None and journaled() < planned // 2:
        time.sleep(0.02)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    done, first = journaled(), len(stub.requests)
    stub.requests.clear()
    started = time.time()
    subprocess.run([*base, "--vita-resume", "--vita-report", "resumed.json"], cwd=workdir / "crashed", env=env,
                   capture_output=True)
    resume_wall, second = time.time() - started, len(stub.requests)
    stub.replies[:] = [answer] * 20_000
    subprocess.run([*base, "--vita-report", "fresh.json"], cwd=workdir / "fresh", env=env, capture_output=True)
    resumed = json.loads((workdir / "crashed" / "resumed.json").read_text())
    fresh = json.loads((workdir / "fresh" / "fresh.json").read_text())
    needed = (planned - done) * REQUESTS_PER_ITEM
    print(f"crash: kill -9 at {done} of {planned} items journaled; the killed run had sent {first} requests, "
          f"{first - done * REQUESTS_PER_ITEM} of them for unfinished items (in flight at the kill)")
    print(f"resume: {second} requests (the {planned - done} unfinished items need {needed}), {resume_wall:.1f} s wall; "
          f"report complete: {resumed['run']['completed']} of {resumed['run']['planned']}, "
          f"metrics equal to an uninterrupted run: {resumed['metrics'] == fresh['metrics']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.5, help="the stub's fixed latency in seconds")
    parser.add_argument("--configs", default="1x32,2x16", help="WORKERSxCONCURRENCY, comma-separated")
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--crash", action="store_true", help="measure kill -9 at half of the 1x32 run and resume")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/vitabench-crash-bench"))
    parser.add_argument("--repeat", type=int, default=1, help="run the configurations N times, interleaved")
    parser.add_argument("--dev-plugins", action="store_true",
                        help="keep the pytest plugins of the dev extra (hypothesis, pytest-asyncio) loaded")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    warm_bytecode()
    extra = [*user_install_args(args.dev_plugins), *args.pytest_args]
    stub = StubLLM(delay=args.latency)
    if args.crash:
        try:
            print(f"load average {os.getloadavg()[0]:.1f}")
            crash_and_resume(stub, 32, args.trials, args.workdir, extra)
        finally:
            stub.close()
        return 0
    rows = []
    try:
        for _ in range(args.repeat):
            for spec in args.configs.split(","):
                workers, concurrency = (int(x) for x in spec.lower().split("x"))
                rows.append(run_config(stub, workers, concurrency, args.trials, extra))
    finally:
        stub.close()
    print(f"paper suite, {args.trials} trial(s), memory none, stub latency {args.latency:g} s on 127.0.0.1, "
          f"{REQUESTS_PER_ITEM} requests per item; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; "
          f"{plugins_note(args.dev_plugins)}")
    print(f"{'configuration':18s} {'items':>5s} {'requests':>8s} {'wall s':>7s} {'bound s':>7s} {'wall/bound':>10s} "
          f"{'span s':>7s} {'span/bound':>10s} {'startup s':>9s} {'peak in flight':>14s} {'tree MB':>8s} "
          f"{'CPU ms/item':>11s} {'stub ms/item':>12s} {'CPU/2 cores/bound':>17s} {'load':>5s}")
    for r in rows:
        items = max(r["items"], 1)
        # Wall can reach the bound only if the CPU all processes need, spread over 2 cores, fits in it.
        cpu_share = (r["tree_cpu_s"] + r["stub_cpu_s"]) / min(2, os.cpu_count() or 1) / r["bound_s"]
        print(f"{r['config']:18s} {r['items']:5d} {r['requests']:8d} {r['wall_s']:7.1f} {r['bound_s']:7.1f} "
              f"{r['wall_s'] / r['bound_s']:10.2f} {r['span_s']:7.1f} {r['span_s'] / r['bound_s']:10.2f} "
              f"{r['startup_s']:9.1f} {r['peak_in_flight']:>6d} of {r['total_concurrency']:<5d} "
              f"{r['peak_tree_mb']:8.0f} {1000 * r['tree_cpu_s'] / items:11.1f} {1000 * r['stub_cpu_s'] / items:12.1f} "
              f"{cpu_share:17.2f} {r['load']:5.1f}")
    print("CPU ms/item: user+system CPU of the pytest process tree (controller and workers, startup included) "
          "per item; stub ms/item: the stub's own CPU per item (same machine, same cores)")
    if args.repeat > 1:
        import statistics

        for config in dict.fromkeys(r["config"] for r in rows):
            walls = sorted(r["wall_s"] for r in rows if r["config"] == config)
            bound = next(r["bound_s"] for r in rows if r["config"] == config)
            median = statistics.median(walls)
            print(f"{config}: {len(walls)} runs, wall {', '.join(f'{w:.1f}' for w in walls)} s; "
                  f"median {median:.2f} s = {median / bound:.3f}x the bound")
    return 0


if __name__ == "__main__":
    sys.exit(main())
