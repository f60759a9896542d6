"""The score fingerprint of a checkout: every reward, outcome and verdict of fixed offline runs (issue 31).

    python benchmarks/score_fingerprint.py --out /work/golden/before             # run all, save one JSON per run
    python benchmarks/score_fingerprint.py --compare /work/golden/before         # run all, SAME / DIFFERENT per run
    python benchmarks/score_fingerprint.py --only demo,v1 --compare DIR --out DIR2

Run it with the checkout's own interpreter (``.venv/bin/python benchmarks/score_fingerprint.py``): every run is
``sys.executable -m pytest SUITE ... -p no:cacheprovider --rootdir CHECKOUT --vita-report TMP.json`` from the
checkout's root, so it measures the package that interpreter imports. The runs (groups for ``--only``):

- ``demo``: ``suites/demo --vita-memory none,groundtruth,full_context,rag``. The fourth backend is ``rag``, not
  ``agentic``: the agentic memory rewrites its text with an LLM and refuses to start without one;
  rag runs offline (a local embedding model);
- ``paper``: ``suites/paper -n 2 --vita-memory none,full_context,rag`` (784 subtasks x 3 backends x 4 trials);
- ``v1``: the VitaBench 1.0 files in ``../shared/data/vitabench1/`` beside the checkout (``$VITA_SHARED_DIR``
  overrides ``../shared``), each with the default options: delivery en, delivery zh, in-store en, and in-store en
  again with ``--vita-model oracle`` (today a deprecated alias of ``groundtruth-reader``; its rewards are all 0
  there) and with ``--vita-model answer`` (the answer oracle, which passes most items, so that passing verdicts
  are fingerprinted too). Skipped, with a message, when the directory is absent. ``--rootdir`` makes their node
  ids start with ``::`` (the file lies outside the rootdir); each run holds one file, so the keys stay unique.

Only options the restructure keeps are used (``--vita-memory``, ``--vita-model``, ``--vita-report``, ``-n``), so the
same command runs before and after. ``--rootdir`` keeps the run directories (``.vitabench/runs/``) inside the
checkout even for the 1.0 files (whose directory is read-only); each run's directory is removed once read.

What a run's JSON holds, per item (keyed by its node id with the suite file's directory dropped, so that two
checkouts at different places compare): ``reward``, ``outcome``, ``rubrics`` (each rubric's ``met`` verdict, in
order), ``termination``, ``steps``; and the report's whole ``metrics`` block. These are compared: any change is
DIFFERENT and the exit status is 1. Also saved, compared only as information: ``traces`` (each item's
``messages_sha256`` and ``snapshot_sha256``, the hashes of its conversation and final database), ``summary`` and
``wall_s``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("VITA_SHARED_DIR") or REPO.parent / "shared")
VB1 = SHARED / "data" / "vitabench1"

#: name -> (group for --only, pytest arguments)
RUNS: dict[str, tuple[str, list[str]]] = {
    "demo": ("demo", ["suites/demo", "--vita-memory", "none,groundtruth,full_context,rag"]),
    "paper": ("paper", ["suites/paper", "-n", "2", "--vita-memory", "none,full_context,rag"]),
    "v1-delivery-en": ("v1", [str(VB1 / "delivery_tasks_en.json")]),
    "v1-delivery-zh": ("v1", [str(VB1 / "delivery_tasks_zh.json")]),
    "v1-instore-en": ("v1", [str(VB1 / "instore_tasks_en.json")]),
    "v1-instore-en-oracle": ("v1", [str(VB1 / "instore_tasks_en.json"), "--vita-model", "oracle"]),
    "v1-instore-en-answer": ("v1", [str(VB1 / "instore_tasks_en.json"), "--vita-model", "answer"]),
}
GROUPS = ("demo", "paper", "v1")
COMPARED = ("items", "metrics")
SHOWN_DIFFERENCES = 10


def _item_key(nodeid: str) -> str:
    """``suites/demo/tasks.json::U1::s[none-t0]`` -> ``tasks.json::U1::s[none-t0]`` (independent of where it ran)."""
    path, _, rest = nodeid.partition("::")
    return f"{Path(path).name}::{rest}"


def fingerprint(report: dict) -> dict:
    """The compared and the informational parts of one report."""
    items, traces = {}, {}
    for result in sorted(report["results"], key=lambda r: r["nodeid"]):
        key = _item_key(result["nodeid"])
        items[key] = {
            "reward": result["reward"], "outcome": result["outcome"],
            "rubrics": [rubric["met"] for rubric in result["rubrics"]],
            "termination": result["termination"], "steps": result["steps"],
        }
        traces[key] = [result.get("messages_sha256"), result.get("snapshot_sha256")]
    return {"items": items, "metrics": report["metrics"], "traces": traces}


def summary(fp: dict) -> dict:
    """Items, outcome counts and each backend's subtask Avg@k."""
    outcomes: dict[str, int] = {}
    for item in fp["items"].values():
        outcomes[item["outcome"]] = outcomes.get(item["outcome"], 0) + 1
    avg = {}
    for backend, block in sorted(fp["metrics"].items()):
        if isinstance(block, dict) and "k" in block:
            avg[backend] = {f"avg@{block['k']}": block["subtask"][f"avg@{block['k']}"]}
    return {"items": len(fp["items"]), "outcomes": dict(sorted(outcomes.items())), "subtask": avg}


def run(name: str, arguments: list[str]) -> dict:
    """Run one pytest session of the checkout's package and fingerprint its report."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "VITA_OFFICIAL_SOURCE")}
    with tempfile.TemporaryDirectory(prefix="fingerprint-") as tmp:
        report_path = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "pytest", *arguments, "-q", "-p", "no:cacheprovider",
                   "--rootdir", str(REPO), "--vita-report", str(report_path)]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if done.returncode not in (0, 1) or not report_path.is_file():
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
            raise SystemExit(f"{name}: pytest exited {done.returncode} without a report:\n{tail}")
        report = json.loads(report_path.read_text(encoding="utf-8"))
    run_dir = Path(report.get("run", {}).get("dir") or "")
    if run_dir.is_dir() and (REPO / ".vitabench" / "runs") in run_dir.parents:
        shutil.rmtree(run_dir)
    fp = fingerprint(report)
    return {"run": name, "arguments": arguments, "git_commit": report.get("run", {}).get("git_commit"),
            "summary": summary(fp), "wall_s": round(wall, 1), **fp}


def differences(saved: object, now: object, where: str = "") -> list[str]:
    """Every place where two JSON values differ, as ``path: saved -> now`` (dict keys in order)."""
    if isinstance(saved, dict) and isinstance(now, dict):
        found = []
        for key in list(saved) + [k for k in now if k not in saved]:
            here = f"{where}[{key!r}]" if where else str(key)
            if key not in now:
                found.append(f"{here}: only in the saved run")
            elif key not in saved:
                found.append(f"{here}: only in this run")
            else:
                found.extend(differences(saved[key], now[key], here))
        return found
    if isinstance(saved, list) and isinstance(now, list) and len(saved) == len(now):
        return [d for i, (a, b) in enumerate(zip(saved, now, strict=True)) for d in differences(a, b, f"{where}[{i}]")]
    # bit for bit: 1 == 1.0 and True == 1 in Python, not here
    if type(saved) is not type(now) or saved != now:
        return [f"{where}: {json.dumps(saved)} -> {json.dumps(now)}"]
    return []


def compare(saved: dict, now: dict) -> bool:
    """Print SAME / DIFFERENT for one run with its first differences; True when the scores are the same."""
    found = [d for part in COMPARED for d in differences(saved[part], now[part], part)]
    print(f"{now['run']}: {'SAME' if not found else f'DIFFERENT ({len(found)} differences)'}")
    for line in found[:SHOWN_DIFFERENCES]:
        print(f"    {line}")
    traces = differences(saved.get("traces", {}), now["traces"], "traces")
    if traces:
        print(f"    (information: {len(traces)} trace hashes differ, first: {traces[0]})")
    return not found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="directory to write one JSON per run into")
    parser.add_argument("--compare", type=Path, help="directory of saved runs to compare with")
    parser.add_argument("--only", default=",".join(GROUPS),
                        help=f"comma-separated groups or run names (groups: {', '.join(GROUPS)}; default: all)")
    args = parser.parse_args(argv)
    if not args.out and not args.compare:
        parser.error("give --out DIR, --compare DIR or both")
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    unknown = wanted - set(GROUPS) - set(RUNS)
    if unknown:
        parser.error(f"--only: unknown {', '.join(sorted(unknown))} (groups: {', '.join(GROUPS)}; "
                     f"runs: {', '.join(RUNS)})")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    same = True
    for name, (group, arguments) in RUNS.items():
        if group not in wanted and name not in wanted:
            continue
        if group == "v1" and not VB1.is_dir():
            print(f"{name}: SKIPPED: {VB1} is absent (the VitaBench 1.0 files live in ../shared/data/vitabench1 "
                  f"beside the checkout; $VITA_SHARED_DIR names another ../shared)")
            continue
        now = run(name, arguments)
        brief = now["summary"]
        print(f"{name}: {brief['items']} items {brief['outcomes']} subtask {brief['subtask']} ({now['wall_s']} s)")
        if args.out:
            (args.out / f"{name}.json").write_text(json.dumps(now, indent=1, sort_keys=False) + "\n",
                                                   encoding="utf-8")
        if args.compare:
            saved_path = args.compare / f"{name}.json"
            if not saved_path.is_file():
                print(f"{name}: DIFFERENT: nothing saved at {saved_path}")
                same = False
                continue
            same = compare(json.loads(saved_path.read_text(encoding="utf-8")), now) and same
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
