"""``vitabench judge-audit`` of the paper suite x 1 backend x 1 trial against stub judges on 127.0.0.1.

    python benchmarks/bench_judge_audit.py                       # timing (window judge) and recovery (full judge)
    python benchmarks/bench_judge_audit.py --latency 0.5 --concurrency 32
    python benchmarks/bench_judge_audit.py --run saved/run.json  # audit a saved run instead of making one

First a run of ``suites/paper`` with the offline reference agent and the rules judge (``--vita-trials 1
--vita-memory full_context``, 784 items) is made in a temporary directory, unless ``--run`` names one. Then:

* timing: the official sliding-window judge (one vote) audits every item against a stub that answers every
  window after ``--latency`` seconds with every rubric met; printed: items, requests (and requests per
  item), wall time against the latency bound (requests x latency / concurrency, or the longest item's
  windows x latency if larger), and the audit's own CPU time per item (this process, stub included);
* recovery: the official window judge and the full-trajectory judge (``--recovery window,full``) against a stub
  that knows the rules judge's truth and plants errors (``tests/_stub_judge.py``): verdicts flipped at random,
  truly unmet rubrics called met, and unreadable items; printed: what was planted and what the audit measured,
  with its 95% intervals.

Wall times on a shared machine are inflated by the other processes: compare the ratio to the bound and the
request counts, which do not depend on the load.
"""

from __future__ import annotations

import argparse
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

from _stub_judge import PlantedJudge  # noqa: E402
from _stub_llm import StubLLM  # noqa: E402

from pytest_vitabench.commands.judge_audit import JudgeSetup, audit_run  # noqa: E402
from pytest_vitabench.commands.rejudge import replay, resolve_suites  # noqa: E402
from pytest_vitabench.judges.render import windows  # noqa: E402
from pytest_vitabench.llm import LLMClient, LLMSettings  # noqa: E402
from pytest_vitabench.report.json_report import load_report  # noqa: E402
from pytest_vitabench.result import ItemResult  # noqa: E402
from pytest_vitabench.runs import open_run  # noqa: E402


def make_run(root: Path) -> Path:
    report = root / "run.json"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", str(SUITE), "-q", "-p", "no:cacheprovider", "--vita-trials", "1",
                    "--vita-memory", "full_context", "--vita-report", str(report)], cwd=root, capture_output=True,
                   check=False)
    print(f"run of {SUITE.name}: {time.perf_counter() - started:.1f} s (pytest, rules judge)")
    return report


def cases_of(report: Path) -> list[Any]:
    suites = resolve_suites(load_report(report))
    run = open_run(report)
    results = [ItemResult.model_validate(run.full_result(row["nodeid"])) for row in run.results]
    return [replay(r, suites[r.suite], "en")[0] for r in results]


def all_met(request: dict[str, Any]) -> dict[str, Any]:
    content = request["messages"][-1]["content"]
    count = content.count('"rubric_idx"') or 1  # the window judge's state lists every rubric
    return {"content": json.dumps([{"rubric_idx": i, "met": True, "justification": "ok"}
                                   for i in range(1, count + 1)])}


def client_for(stub: StubLLM, concurrency: int) -> LLMClient:
    return LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_SUCH_VAR", cache="off",
                                 max_concurrency=concurrency))


def timing(report: Path, cases: list[Any], latency: float, concurrency: int) -> None:
    stub = StubLLM(delay=latency)
    stub.responder = all_met
    client = client_for(stub, concurrency)
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        out = audit_run(report, [JudgeSetup("stub-judge", "window")], client=client, ledger=client.ledger,
                        concurrency=concurrency, bootstrap=1000)
    finally:
        client.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stub.close()
    items = out["judge_audit"]["items"]
    requests = len(stub.requests)
    longest = max(len(windows(len(c.messages))) for c in cases)
    bound = max(requests * latency / concurrency, longest * latency)
    judging = out["judge_audit"]["setups"][0]["seconds"]
    print(f"timing (window judge, latency {latency} s, {concurrency} in flight): {items} items, {requests} requests "
          f"({requests / items:.2f} per item); judging {judging:.1f} s against a latency bound of {bound:.1f} s "
          f"(ratio {judging / bound:.2f}); whole audit (suite load, replay, judging, figures) {wall:.1f} s; "
          f"CPU {cpu:.1f} s ({1000 * cpu / items:.1f} ms per item, stub and bootstrap included)")


def recovery(report: Path, cases: list[Any], concurrency: int, mode: str) -> None:
    planted = PlantedJudge(cases, flip=0.1, bias_met=0.2, malformed=0.05, seed=0)
    stub = StubLLM()
    stub.responder = planted
    client = client_for(stub, concurrency)
    try:
        out = audit_run(report, [JudgeSetup("stub-judge", mode)], client=client, ledger=client.ledger,
                        concurrency=concurrency)
    finally:
        client.close()
        stub.close()
    s = out["judge_audit"]["setups"][0]

    def shown(name: str) -> str:
        lo, hi = s["ci95"][name] or (float("nan"), float("nan"))
        return f"{s[name]:.3f} [{lo:.3f}, {hi:.3f}]"

    # planted: flips at 0.1 either way, then unmet->met at 0.2 of what is still unmet; the window judge's verdict
    # is its last window's, which is planted the same way
    false_pass = 0.1 + 0.9 * 0.2
    print(f"recovery ({mode} judge; planted flip 0.1, bias to met 0.2, unreadable 0.05; {len(stub.requests)} "
          f"requests, {planted.unknown} unrecognised, {planted.ambiguous} last windows ambiguous): {s['n']} pairs over "
          f"{s['n_users']} users")
    # the stub counts per request: with one request per item (full judge) that is per rubric, as the audit counts
    passes, fails = ("", "") if mode != "full" else (
        f" (realised {planted.false_pass / planted.truly_unmet:.3f})",
        f" (realised {planted.false_fail / planted.truly_met:.3f})")
    print(f"  false pass: planted {false_pass:.3f}{passes}, measured {shown('false_pass')}")
    print(f"  false fail: planted 0.100{fails}, measured {shown('false_fail')}")
    print(f"  agreement {shown('agreement')}, kappa {shown('kappa')}")
    print(f"  unreadable items: planted {planted.unreadable}, unscored items measured {s['unscored_items']} "
          f"({s['unscored']} machine-checked rubrics)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, help="a saved run to audit (default: make one of suites/paper)")
    parser.add_argument("--latency", type=float, default=0.2, help="stub latency in seconds (default: 0.2)")
    parser.add_argument("--concurrency", type=int, default=16, help="items judged at once (default: 16)")
    parser.add_argument("--recovery", default="window,full", help="judge modes of the recovery (default: window,full)")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        report = args.run or make_run(Path(tmp))
        cases = cases_of(report)
        timing(report, cases, args.latency, args.concurrency)
        for mode in [m.strip() for m in args.recovery.split(",") if m.strip()]:
            recovery(report, cases, args.concurrency, mode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
