"""The spend cap, measured: a priced stub run capped at half its estimate (-n 2), then --vita-resume without a
cap, compared with an uninterrupted run of the same seed.

    python benchmarks/budget_cap.py

A stub on 127.0.0.1 plays the plugin tests' even/odd agent as an LLM (``stub-model``, priced by
``--vita-prices``); the tiny test suite, 12 items. Prints the spend at the stop against the cap, the items not
run, and whether the resumed run's whole metrics object equals the uninterrupted run's.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "plugin")]
from _stub_llm import StubLLM  # noqa: E402
from _suites import tiny_suite  # noqa: E402
from test_budget import PRICES, even_odd_agent  # noqa: E402

PY, VITA = [sys.executable], [sys.executable, "-m", "pytest_vitabench.commands.cli"]
stub = StubLLM()
stub.responder = even_odd_agent
project = Path(tempfile.mkdtemp(prefix="vita-budget-"))
(project / "tasks.json").write_text(json.dumps(tiny_suite()))
(project / "pytest.ini").write_text("[pytest]\n")
env = {**os.environ, "VITA_STUB_KEY": "sk-stub-budget-0123456789"}
common = ["tasks.json", "-n", "2", "-p", "no:cacheprovider", "--vita-trials", "4", "--vita-model", "stub-model",
          "--vita-base-url", stub.base_url, "--vita-api-key-env", "VITA_STUB_KEY", "--vita-prices", PRICES,
          "--vita-concurrency", "2"]


def pytest(*args):
    print("$ pytest " + " ".join(a.replace(stub.base_url, "$STUB") for a in args[1:]))
    return subprocess.run([*PY, "-m", "pytest", *args], cwd=project, env=env, capture_output=True, text=True)


try:
    estimate = subprocess.run([*VITA, "estimate", "tasks.json", "--vita-model", "stub-model",
                               "--vita-user-model", "scripted", "--vita-judge-model", "rules",
                               "--vita-memory", "full_context", "--vita-trials", "4", "--vita-prices", PRICES],
                              cwd=project, capture_output=True, text=True).stdout
    figure = float(re.search(r"^total .* ([0-9.]+)$", estimate, re.M)[1])
    print(estimate)
    print(f"estimate: ${figure:.4f}; cap = half of it: ${figure / 2:.4f}")
    full = None
    for concurrency in ("2", "auto"):
        args = [*common[:-1], concurrency]
        if full is None:
            full = pytest(*args, "--vita-report", "full.json")
        capped = pytest(*args, "--vita-budget-usd", f"{figure / 2:.6f}", "--vita-report", "capped.json")
        print("\n".join(line for line in capped.stdout.splitlines()
                        if line.startswith(("vitabench budget", "budget:", "items:", "exit status"))
                        or "not run: budget (" in line))
        resumed = pytest(*args, "--vita-resume", "--vita-report", "resumed.json")
        print("\n".join(line for line in resumed.stdout.splitlines() if "resumed run" in line))
        a, b, c = (json.loads((project / name).read_text()) for name in ("full.json", "capped.json", "resumed.json"))
        item_cost = a["usage"]["total"]["cost"] / len(a["results"])
        print(f"--vita-concurrency {concurrency}, -n 2:")
        print(f"uninterrupted: exit {full.returncode}, {len(a['results'])} items, ${a['usage']['total']['cost']:.4f}"
              f" (${item_cost:.4f} per item)")
        print(f"capped:        exit {capped.returncode}, {len(b['results'])} items run, "
              f"{len(b.get('not_run', []))} not run: budget; spent ${b['usage']['total']['cost']:.4f} "
              f"(cap ${figure / 2:.4f}, cap + one item ${figure / 2 + item_cost:.4f})")
        print(f"resumed:       exit {resumed.returncode}, {len(c['results'])} items "
              f"({sum(r.get('resumed', False) for r in c['results'])} reused), "
              f"spent ${c['usage']['total']['cost']:.4f}")
        for memory, levels in a["metrics"].items():
            for level in ("subtask", "user"):
                keys = [k for k in levels[level] if "@" in k or "^" in k]
                print(f"{memory} {level}: uninterrupted " + ", ".join(f"{k}={levels[level][k]:.4f}" for k in keys)
                      + " | resumed " + ", ".join(f"{k}={c['metrics'][memory][level][k]:.4f}" for k in keys))
        print("whole metrics objects equal:", a["metrics"] == c["metrics"])
        sub = b["metrics"]["full_context"]["subtask"]
        print(f"capped run's own metrics: subtask units {sub['n_units']} of 3, n_short {sub['n_short']}, "
              f"avg@4 {sub['avg@4']}\n")
finally:
    stub.close()
