"""The harness's CPU per LLM request, and where it goes: a sampling profile of a latency-bound run.

    python benchmarks/profile_requests.py                         # 1 process x 256 in flight, stub latency 2 s
    python benchmarks/profile_requests.py --concurrency 32 --latency 0.5 --top 30
    python benchmarks/profile_requests.py --no-profile --floor    # and the openai client alone on the same requests

The run is bench_concurrency's (the paper suite, 1 trial, memory none, the stub answering a tool call that
does not exist and then ``###STOP###``: 2 agent requests per item), in one pytest process. Printed:

* CPU seconds of the pytest process per request, split into startup (process start to the first request:
  imports, collection, the suite's index) and the run (first request to exit), read from /proc; the run's
  part is what each further request costs, the number to plan with (requests per second per core = 1 / it);
* if py-spy is installed (``pip install py-spy``; it samples every thread without slowing the process much),
  the run's CPU by package (self time of the sampled frames, grouped by the module of the innermost frame
  of ours or of a library) and the functions with the most self time.

The machine may be shared: CPU seconds do not depend on other load much; wall-clock figures do.
"""

from __future__ import annotations

import argparse
import collections
import http.server
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "benchmarks")]

import client_floor  # noqa: E402
from _stub_llm import StubLLM  # noqa: E402
from bench_concurrency import REQUESTS_PER_ITEM, SUITE, answer  # noqa: E402
from bench_paper import child_env, user_install_args, warm_bytecode  # noqa: E402

_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its reaped children (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / _TICKS  # utime stime cutime cstime


def _group(frame: str) -> str:
    """The package a sampled frame belongs to: ours by subpackage, libraries by top-level name."""
    match = re.search(r"\(([^)]*)\)", frame)
    path = match.group(1) if match else frame
    if "pytest_vitabench" in path:
        tail = path.split("pytest_vitabench/", 1)[-1]
        return "pytest_vitabench/" + (tail.split("/", 1)[0] if "/" in tail else tail.split(":", 1)[0])
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0]
    if "/lib/python" in path:
        return "stdlib:" + path.split("/lib/python", 1)[1].split("/", 2)[1].split(".py", 1)[0]
    return path.split(":", 1)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--top", type=int, default=25, help="functions listed by self time")
    parser.add_argument("--no-profile", action="store_true", help="only the CPU figures, without py-spy")
    parser.add_argument("--keep-alive", action="store_true",
                        help="the stub speaks HTTP/1.1 and keeps connections open, as vLLM and hosted APIs do "
                             "(by default it closes each one, as an HTTP/1.0 server)")
    parser.add_argument("--floor", action="store_true",
                        help="also send the run's requests through a bare openai client (client_floor.py)")
    args = parser.parse_args(argv)
    warm_bytecode()
    stub = StubLLM(delay=args.latency)
    if args.keep_alive:
        stub.server.RequestHandlerClass.protocol_version = "HTTP/1.1"  # type: ignore[attr-defined]
    stub.replies[:] = [answer] * 20_000
    command = [sys.executable, "-m", "pytest", str(SUITE), "-p", "no:cacheprovider", "-q", "--tb=no", "-rN",
               "--vita-model", "stub-model", "--vita-base-url", stub.base_url, "--vita-memory", "none",
               "--vita-trials", "1", "--vita-cache", "off", "--vita-concurrency", str(args.concurrency),
               "--vita-progress", "off", *user_install_args(False)]
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    profiled = not args.no_profile and os.path.exists(spy)
    raw = Path(tempfile.mkdtemp(prefix="vita-profile-")) / "samples.txt"
    load = os.getloadavg()[0]
    started = time.time()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=child_env({"OPENAI_API_KEY": "local"}))
    while not stub.times and process.poll() is None:
        time.sleep(0.005)
    startup_cpu, first_request = _cpu_s(process.pid), time.time()
    recorder = None
    if profiled:
        recorder = subprocess.Popen([spy, "record", "--pid", str(process.pid), "--rate", "200", "--format", "raw",
                                     "--output", str(raw), "--threads", "--gil", "--nonblocking"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    last_cpu = run_end_cpu = startup_cpu
    last_answer = None
    while process.poll() is None:
        last_cpu = max(last_cpu, _cpu_s(process.pid))
        # The episodes are over once nothing is in flight and nothing new came for longer than the latency:
        # what follows is the end of the session (metrics, intervals, report), profiled apart.
        if last_answer is None and stub.live == 0 and time.time() - max(stub.times) > args.latency + 0.5:
            last_answer, run_end_cpu = max(end for _, end in stub.spans), last_cpu
            if recorder is not None:
                recorder.send_signal(signal.SIGINT)  # py-spy writes its samples and exits
        time.sleep(0.05)
    ended = time.time()
    if recorder is not None:
        recorder.wait(timeout=60)
    stub.close()
    requests = len(stub.requests)
    if last_answer is None:
        last_answer, run_end_cpu = ended, last_cpu
    run_cpu = run_end_cpu - startup_cpu
    bound = max(requests * args.latency / args.concurrency, REQUESTS_PER_ITEM * args.latency)
    wire = "HTTP/1.1 keep-alive" if args.keep_alive else "HTTP/1.0, a connection per request"
    print(f"1 process x {args.concurrency} in flight, stub latency {args.latency:g} s ({wire}), {requests} requests; "
          f"load average at start {load:.1f} on {os.cpu_count()} cores (shared: wall times are inflated)")
    print(f"startup: {startup_cpu:.2f} CPU s before the first request ({first_request - started:.1f} s wall)")
    print(f"episodes: {run_cpu:.2f} CPU s for {requests} requests = {1000 * run_cpu / max(requests, 1):.2f} CPU ms "
          f"per request = {requests / max(run_cpu, 1e-9):.0f} requests per CPU second (one core); "
          f"{last_answer - first_request:.1f} s wall from the first request to the last answer, bound {bound:.1f} s "
          f"({(last_answer - first_request) / bound:.2f}x); CPU needed / bound = {run_cpu / bound:.2f} of one core")
    print(f"end of session (metrics, intervals, report, exit): {last_cpu - run_end_cpu:.2f} CPU s, "
          f"{ended - last_answer:.1f} s wall; whole run {ended - started:.1f} s wall = "
          f"{(ended - started) / bound:.2f}x the bound")
    if args.floor:
        # A bare pool opens its connections all at once, where the plugin ramps up: a listen backlog that holds
        # them (the http.server default of 5 resets some).
        http.server.ThreadingHTTPServer.request_queue_size = 1024
        bodies, stub = stub.requests, StubLLM(delay=args.latency)
        if args.keep_alive:
            stub.server.RequestHandlerClass.protocol_version = "HTTP/1.1"  # type: ignore[attr-defined]
        stub.replies[:] = [answer] * 20_000
        floor = client_floor.measure(sys.executable, bodies, stub.base_url, args.concurrency, raw.parent)
        stub.close()
        built = floor["import_s"] + floor["client_s"]
        print(f"the openai client alone on the same {floor['requests']} requests (client_floor.py): "
              f"{floor['ms_per_request']:.2f} CPU ms per request; import and build {built:.2f} s")
    if recorder is None or not raw.exists():
        print("(no profile: py-spy is not installed)" if not args.no_profile else "")
        return 0
    by_group: collections.Counter[str] = collections.Counter()
    by_function: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = [f for f in stack.split(";") if not f.startswith(("thread (", "process "))]
        if not frames:
            continue
        count = int(count_text)
        total += count
        by_function[frames[-1]] += count
        by_group[_group(frames[-1])] += count
    print(f"profile of the episodes: {total} samples of the thread holding the GIL (py-spy --gil, 200 Hz)")
    for group, count in by_group.most_common(15):
        print(f"  {100 * count / total:5.1f}%  {group}")
    print("functions by self time:")
    for function, count in by_function.most_common(args.top):
        print(f"  {100 * count / total:5.1f}%  {function}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
