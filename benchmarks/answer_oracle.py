"""The answer oracle's Avg over every annotated subtask of each loadable suite, with every exception and why.

    python benchmarks/answer_oracle.py                 # demo, paper, the three 1.0 files, official-shape fixtures
    python benchmarks/answer_oracle.py --workers 2 --json answer.json
    python benchmarks/answer_oracle.py --tool-checks official   # or both: each suite under each setting

Each suite runs through the real plugin in a subprocess:
``pytest SUITE --vita-model answer --vita-memory none --vita-trials 1 -n WORKERS --vita-report R`` (plus
``--vita-deviation tool-checks=official`` for the official tools' rules).
Expect 1.000 wherever the annotations are solvable; every item below 1.0 is listed with the failing
outcome checks (the same reasons ``vitabench validate`` prints), and skipped items (nothing judgeable)
with the reason. Items whose rubrics the rules judge cannot read are judged on the answer annotations.
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

REPO = Path(__file__).resolve().parents[1]
VB1 = REPO.parent / "shared" / "data" / "vitabench1"
SUITES = [
    ("demo", REPO / "suites" / "demo" / "tasks.json"),
    ("paper", REPO / "suites" / "paper" / "tasks.vita.json.gz"),
    ("vitabench1 delivery en", VB1 / "delivery_tasks_en.json"),
    ("vitabench1 delivery zh", VB1 / "delivery_tasks_zh.json"),
    ("vitabench1 in-store en", VB1 / "instore_tasks_en.json"),
    ("official shape: paper D.1 case", REPO / "tests" / "data" / "official_shape" / "d1_case_study.json"),
    ("official shape: 1.0 in-store", REPO / "tests" / "data" / "official_shape" / "vb1_instore_tasks.json"),
    ("official shape: 1.0 travel", REPO / "tests" / "data" / "official_shape" / "vb1_ota_tasks.json"),
    ("official shape: 1.0 trips", REPO / "tests" / "data" / "official_shape" / "vb1_ota_trips.json"),
]


from pytest_vitabench.runs import open_run  # noqa: E402


def measure(name: str, path: Path, workers: int, tool_checks: str = "default") -> dict:
    if not path.exists():
        return {"suite": name, "path": str(path), "missing": True}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        command = [sys.executable, "-m", "pytest", str(path), "--vita-model", "answer", "--vita-memory", "none",
                   "--vita-trials", "1", "-q", "-p", "no:cacheprovider", "--vita-report", str(report)]
        if workers > 1:
            command += ["-n", str(workers)]
        if tool_checks == "official":
            command += ["--vita-deviation", "tool-checks=official"]
        started = time.perf_counter()
        subprocess.run(command, cwd=tmp, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        run = open_run(report)  # the report holds summaries; trajectories are read from its run directory
        results = [run.full_result(r["nodeid"]) for r in run.results]
    scored = [r for r in results if r["outcome"] != "skipped"]
    exceptions = []
    for r in results:
        if r["outcome"] == "passed":
            continue
        reasons = [f"{v['text']}: {v['reason']}" for v in r["rubrics"]
                   if v["met"] is False or (v["met"] is None and v.get("kind") == "outcome")]
        said = [m.get("content") or "" for m in r["messages"] if m["role"] == "assistant" and not m.get("tool_calls")]
        stopped = said[-1] if said and said[-1].startswith("Sorry") else ""
        why = "; ".join([*([f"agent: {stopped}"] if stopped else []), *([r["error"]] if r.get("error") else []),
                         *reasons])
        exceptions.append({"item": f"{r['user_id']}::{r['subtask_id']}", "outcome": r["outcome"],
                           "reward": r["reward"], "why": why})
    return {"suite": name, "path": str(path), "tool_checks": tool_checks, "items": len(results),
            "judged": len(scored),
            "avg": sum(r["reward"] for r in scored) / len(scored) if scored else None,
            "avg_all": sum(r["reward"] for r in results) / len(results) if results else None,
            "exceptions": exceptions, "wall_s": round(wall, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (default 2)")
    parser.add_argument("--json", default=None, help="also write the figures as JSON")
    parser.add_argument("--tool-checks", choices=("default", "official", "both"), default="default",
                        help="run under the default tool checks, the official tools' rules, or both")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    settings = ("default", "official") if args.tool_checks == "both" else (args.tool_checks,)
    rows = [measure(name, path, args.workers, checks) for name, path in SUITES for checks in settings]
    for row in rows:
        if row.get("missing"):
            print(f"{row['suite']}: not found at {row['path']} (skipped)")
            continue
        print(f"{row['suite']} [{row['tool_checks']} tool checks]: Avg {row['avg']:.3f} over {row['judged']} "
              "judged items "
              f"({row['items']} items, {len(row['exceptions'])} below 1.0 or not judged; {row['wall_s']} s)")
        for item in row["exceptions"]:
            print(f"    {item['item']} [{item['outcome']}, reward {item['reward']}]: {item['why'][:400]}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
