"""Measure the LLM client's run-wide limits and cache through the whole plugin, against a local stub.

Runs the demo suite with every role an LLM (agent, user simulator, judge) served by an OpenAI-compatible
stub on 127.0.0.1, and reports:

1. requests of a first run, of a second run with the default cache (judge calls cached), and of two runs
   with ``--vita-cache all`` (the second makes none);
2. under ``-n 2``, the most requests the stub saw in any window against ``--vita-limits rpm`` (per-second window
   via ``-o vita_limits=window=1`` so the check takes seconds, not minutes), and the most in flight against
   ``--vita-limits in-flight``.

    python benchmarks/llm_limits.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _stub_llm import StubLLM  # noqa: E402

VERDICTS = json.dumps([{"rubric_idx": i, "met": False, "justification": "stub"} for i in range(1, 30)])


class Replies(list):
    """An endless script: the agent stops at once; the judge always answers with verdicts."""

    def __bool__(self) -> bool:
        return True

    def pop(self, index: int = -1):  # noqa: D401 - list protocol
        return lambda request: ({"content": VERDICTS} if request.get("model") == "m-judge"
                                else {"content": "Thanks, nothing more. ###STOP###"})


def run(stub: StubLLM, cache_dir: Path, *extra: str) -> tuple[int, float]:
    before = len(stub.requests)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", str(ROOT / "suites/demo/tasks.json"), "-q", "-p",
                    "no:cacheprovider", "--vita-trials", "1", "--vita-model", "m-agent", "--vita-user-model", "m-user",
                    "--vita-judge-model", "m-judge", "--vita-base-url", stub.base_url, "-k", "U100001",
                    "--rootdir", str(cache_dir), "-c", "/dev/null", *extra],
                   cwd=cache_dir, capture_output=True, text=True, check=False)
    return len(stub.requests) - before, time.perf_counter() - start


def main() -> None:
    stub = StubLLM()
    stub.replies = Replies()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            first, _ = run(stub, Path(tmp))
            second, _ = run(stub, Path(tmp))
        with tempfile.TemporaryDirectory() as tmp:
            all_first, _ = run(stub, Path(tmp), "--vita-cache", "all")
            all_second, _ = run(stub, Path(tmp), "--vita-cache", "all")
        print(f"requests: first run {first}, second run (default cache: judge) {second}; "
              f"--vita-cache all: first {all_first}, second {all_second}")
        for rpm, concurrency in ((5, 0), (10, 1)):
            stub.requests.clear(), stub.times.clear(), stub.spans.clear()
            stub.peak_live = 0
            stub.delay = 0.05
            with tempfile.TemporaryDirectory() as tmp:
                count, wall = run(stub, Path(tmp), "-n", "2", "--vita-trials", "4", "--vita-cache", "off",
                                  "--vita-limits", f"rpm={str(rpm)}",
                                  "-o", "vita_limits=window=1", "--vita-limits", f"in-flight={str(concurrency)}")
            print(f"-n 2, --vita-limits rpm={rpm} per 1 s window, in-flight {concurrency or 'unlimited'}: "
                  f"{count} requests in {wall:.1f} s; busiest 1 s window at the stub {stub.window_max(1.0)} "
                  f"(limit {rpm}); most in flight {stub.peak_live}")
    finally:
        stub.close()


if __name__ == "__main__":
    main()
