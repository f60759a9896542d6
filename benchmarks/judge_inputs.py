"""What the LLM judge is shown under ``--vita-profile default`` and ``--vita-profile official``.

One scripted trajectory per domain (the first subtask of each domain in the demo suite, played by the
offline ``oracle`` agent with the scripted user, so both profiles judge the same conversation) is judged
by an LLM judge served by a stub on 127.0.0.1 that records every request. For each domain and profile it
prints the judge calls, whether any request contains database records, how many record lines it holds, and
the size of the judge input.

    python benchmarks/judge_inputs.py
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _stub_llm import StubLLM  # noqa: E402

from pytest_vitabench.run.wiring import Benchmark  # noqa: E402

SUITE = ROOT / "suites" / "demo" / "tasks.json"
VERDICTS = json.dumps([{"rubric_idx": i, "met": True, "justification": "stub"} for i in range(1, 40)])
RECORD_LINE = re.compile(r'^- \{.*"record_type"', re.M)


class Replies(list):
    """Endless judge replies: every rubric met."""

    def __bool__(self) -> bool:
        return True

    def pop(self, index: int = -1):  # noqa: D401 - list protocol
        return {"content": VERDICTS}


def judge_requests(profile: str, stub: StubLLM, cache: Path) -> dict[str, list[dict]]:
    os.environ["VITA_BENCH_KEY"] = "stub"
    bench = Benchmark({"vita_profile": profile, "vita_model": "oracle", "vita_memory": "groundtruth",
                       "vita_judge_model": "stub-judge", "vita_base_url": stub.base_url,
                       "vita_api_key_env": "VITA_BENCH_KEY", "vita_cache": "off", "vita_trials": "1"},
                      rootdir=cache, state_dir=str(cache / "llm"))
    suite = bench.runner.suite(SUITE)
    out: dict[str, list[dict]] = {}
    for user in suite.users:
        for index, sub in enumerate(user.task.subtasks):
            if sub.domain in out:
                continue
            before = len(stub.requests)
            result = bench.runner.run(nodeid=f"{user.key}::{sub.subtask_id}", suite=suite, user=user, index=index,
                                      memory_name="groundtruth", trial=0, agent=bench.agent(),
                                      user_simulator=bench.user_simulator(), judge=bench.judge())
            assert result.outcome != "error", result.error
            out[sub.domain] = [{"subtask": sub.subtask_id, "messages": len(result.messages)}, *stub.requests[before:]]
    return out


def main() -> None:
    stub = StubLLM()
    stub.replies = Replies()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for profile in ("default", "official"):
                for domain, (info, *requests) in judge_requests(profile, stub, Path(tmp)).items():
                    texts = ["\n".join(m["content"] for m in r["messages"]) for r in requests]
                    records = sum(len(RECORD_LINE.findall(t)) for t in texts)
                    shown = any("## Final records" in t for t in texts)
                    rows.append((domain, info["subtask"], profile, info["messages"], len(requests),
                                 "yes" if shown else "no", records, sum(len(t) for t in texts)))
    finally:
        stub.close()
    print("LLM judge input per domain, same trajectory under both profiles (stub judge on 127.0.0.1)")
    print(f"{'domain':9} {'subtask':14} {'profile':9} {'msgs':>5} {'calls':>5} {'DB records shown':>16} "
          f"{'record lines':>12} {'input chars':>11}")
    for row in sorted(rows):
        print(f"{row[0]:9} {row[1]:14} {row[2]:9} {row[3]:>5} {row[4]:>5} {row[5]:>16} {row[6]:>12} {row[7]:>11,}")


if __name__ == "__main__":
    main()
