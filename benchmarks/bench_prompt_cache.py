"""How much of a run's prompt the provider serves from its prompt cache, and what that does to the bill.

    python benchmarks/bench_prompt_cache.py                      # 2 users of suites/paper, 3 backends, 4 trials
    python benchmarks/bench_prompt_cache.py --users 4 --latency 0.5 --concurrency 32
    python benchmarks/bench_prompt_cache.py --users 4 --memory none --latency 0.5   # latency-bound: wall cost?

A stub provider with an automatic prompt cache (tests/_caching_llm.py: prefixes of 1,024+ tokens, hits in
128-token steps, a prefix known once its request is answered, forgotten after 5 minutes) answers every role
of a run of ``suites/paper`` on 127.0.0.1: the agent, the user simulator, the judge, the agentic memory's
rewrites and the rag embeddings (every model is called gpt-4.1 and priced at its list prices, $2 / $0.50 /
$8 per million prompt / cached prompt / completion tokens). The paper's configuration: full_context, agentic
and rag, 4 trials. The run is made twice, with the plugin's request order (pytest_vitabench/llm/prefix_order.py)
and without it (``-p _prefix_order_off``, a plugin of this folder), each against a fresh cache
and with the disk cache off (so every request is sent); printed per run and role, from the JSON report: the
prompt tokens, the share served from cache and the cost; then whether both runs have the same items, the same
requests (as a multiset of request bodies) and the same scores, and the wall time of each (the machine may be
shared: compare the two, not the absolute figures). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "paper" / "tasks.vita.json.gz"
sys.path[:0] = [str(REPO / "tests"), str(REPO / "benchmarks")]

from _caching_llm import caching_stub  # noqa: E402
from bench_paper import child_env, user_install_args  # noqa: E402

PRICES = "gpt-4.1=2/0.5/8,text-embedding-3-large=0.13/0"
ROLES = ("agent", "user", "judge", "memory", "embeddings")


def run_once(order: str, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    stub, _ = caching_stub(delay=args.latency)
    report = workdir / f"run-{order}.json"
    users = " or ".join(f"U{n:06d}" for n in range(1, args.users + 1))
    command = [sys.executable, "-m", "pytest", str(SUITE), "-q", "--tb=no", "-rN", *user_install_args(),
               "-k", users, "--vita-model", "gpt-4.1", "--vita-user-model", "gpt-4.1", "--vita-judge-model",
               "gpt-4.1", "--vita-embedding-model", "text-embedding-3-large", "--vita-base-url", stub.base_url,
               "--vita-memory", args.memory, "--vita-trials", str(args.trials), "--vita-cache", "off",
               "--vita-concurrency", str(args.concurrency), "--vita-prices", PRICES, "--vita-preflight", "off",
               "--vita-report", str(report), *(["-p", "_prefix_order_off"] if order == "off" else [])]
    started = time.time()
    try:
        done = subprocess.run(command, cwd=workdir, capture_output=True, text=True,
                              env=child_env({"OPENAI_API_KEY": "local", "PYTHONPATH": _pythonpath()}), check=False)
    finally:
        stub.close()
    wall = time.time() - started
    if not report.is_file():
        print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"the {order} run wrote no report")
    data = json.loads(report.read_text())
    requests = collections.Counter(hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()
                                   for r in stub.requests)
    return {"order": order, "wall_s": wall, "report": data, "requests": requests,
            "scores": {r["nodeid"]: (r["outcome"], r["reward"]) for r in data["results"]}}


def _pythonpath() -> str:
    """The benchmarks folder first (for ``-p _prefix_order_off``), then whatever the caller had."""
    return os.pathsep.join(filter(None, [str(REPO / "benchmarks"), os.environ.get("PYTHONPATH")]))


def print_usage(run: dict[str, Any]) -> None:
    roles = run["report"]["usage"]["roles"]
    print(f"request order {run['order']}: {len(run['scores'])} items, {sum(run['requests'].values()):,} "
          f"requests, wall {run['wall_s']:.1f} s")
    print(f"  {'role':<11}{'requests':>9}{'prompt':>14}{'cached':>14}{'share':>7}{'cost $':>10}")
    total_prompt = total_cached = 0
    total_cost = 0.0
    for role in [r for r in ROLES if r in roles]:
        u = roles[role]
        total_prompt += u["prompt_tokens"]
        total_cached += u["cached_prompt_tokens"]
        total_cost += u["cost"]
        share = u["cached_prompt_tokens"] / u["prompt_tokens"] if u["prompt_tokens"] else 0.0
        print(f"  {role:<11}{u['requests']:>9,}{u['prompt_tokens']:>14,}{u['cached_prompt_tokens']:>14,}"
              f"{share:>7.0%}{u['cost']:>10.4f}")
    list_cost = total_cost + (total_cached * (2.0 - 0.5)) / 1e6  # what the cached tokens cost at the prompt rate
    print(f"  {'total':<11}{'':>9}{total_prompt:>14,}{total_cached:>14,}{total_cached / max(total_prompt, 1):>7.0%}"
          f"{total_cost:>10.4f}   (list price without cache: ${list_cost:.4f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2, help="the first N users of suites/paper (default 2)")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=16, help="--vita-concurrency (default 16)")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the stub takes per answer (0.2)")
    parser.add_argument("--memory", default="full_context,agentic,rag",
                        help="--vita-memory (default: the paper's full_context,agentic,rag; 'none' makes prompts "
                             "short, so that the run is bound by the stub's latency, not by this machine's CPU)")
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-prompt-cache-") as tmp:
        runs = [run_once(order, args, Path(tmp)) for order in ("off", "on")]
    for run in runs:
        print_usage(run)
    off, on = runs
    print(f"same items: {set(off['scores']) == set(on['scores'])}; same requests: {off['requests'] == on['requests']}; "
          f"same scores: {off['scores'] == on['scores']}")
    bound = sum(on["requests"].values()) * args.latency / args.concurrency
    print(f"wall time on / off: {on['wall_s'] / off['wall_s']:.2f} (latency bound: {bound:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
