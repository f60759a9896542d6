"""Measure ``--vita-limits tpm`` against a provider that refuses tokens beyond its per-window budget.

The stub (``tests/_token_limited.py``) counts every request as a provider does (cl100k tokens of its
messages, 4 per message, plus the completion it answers with) and answers OpenAI's token-limit 429 ("...
on tokens per min (TPM) ... Please try again in Xs") once the last window's accepted tokens would exceed the
budget. The whole plugin runs the tests' tiny suite under ``-n 2`` with an LLM agent (16 episodes in flight
per worker), once with ``--vita-limits tpm`` at the budget and once without it. The window is 1 s
(``-o vita_limits=window=1``, which sets the ``--vita-limits tpm`` window too) so a run takes seconds, not minutes.

Printed per configuration: items and item errors, requests accepted and refused (429), the most tokens
accepted in any window (must stay within the budget: the stub enforces it, the point is how many 429s it
takes), and the tokens accepted per whole window from the first acceptance on (the last partial window left
out) with their median as a share of the budget: the throughput. First it prints the CPU of the estimate
itself: a ~100k-token prompt counted once, and a conversation's next turn.

    python benchmarks/tpm_limit.py [--budget 40000] [--trials 40]

The machine's cores are shared with other work, so the run's wall-clock time is no figure of ours; the
shares and counts are.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _stub_llm import StubLLM  # noqa: E402
from _suites import tiny_suite  # noqa: E402
from _token_limited import TokenLimit  # noqa: E402

WINDOW_S = 1.0


def run(budget: int, trials: int, tpm: bool) -> dict[str, object]:
    stub = StubLLM()
    limit = TokenLimit(budget=budget, window_s=WINDOW_S)
    stub.replies = limit
    try:
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp)
            (project / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
            (project / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
            command = [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
                       "--vita-trials", str(trials), "--vita-model", "stub-model", "--vita-base-url", stub.base_url,
                       "--vita-preflight", "off", "-o", f"vita_limits=window={WINDOW_S:g}", "--vita-report", "run.json"]
            if tpm:
                command += ["--vita-limits", f"tpm={str(budget)}"]
            started = time.monotonic()
            subprocess.run(command, cwd=project, capture_output=True, text=True, check=False)
            elapsed = time.monotonic() - started
            report = json.loads((project / "run.json").read_text())
    finally:
        stub.close()
    windows = limit.full_windows()
    outcomes = [r["outcome"] for r in report["results"]]
    sizes = [n for _, n in limit.accepted]
    return {
        "tpm": budget if tpm else None, "items": len(outcomes), "item_errors": outcomes.count("error"),
        "accepted": len(limit.accepted), "refused_429": limit.refused, "tokens_per_request": statistics.median(sizes),
        "busiest_window": limit.window_max(), "budget": budget, "full_windows": windows,
        "median_window_share": round(statistics.median(windows) / budget, 3) if windows else None,
        "wall_s": round(elapsed, 1),
    }


def estimate_cost() -> dict[str, object]:
    """CPU of the estimate charged before sending: a ~100k-token system prompt counted once, then a
    conversation's next turn (the same prompt and history again) through the client's remembered counts."""
    import functools

    from pytest_vitabench.llm.tokenrate import estimate_request_tokens
    from pytest_vitabench.memory.tokens import count_tokens, tokenizer_name

    text = (ROOT / "suites" / "demo" / "tasks.json").read_text(encoding="utf-8")
    while count_tokens(text) < 100_000:
        text += text
    counter = functools.lru_cache(maxsize=256)(count_tokens)
    messages = [{"role": "system", "content": text}] + [{"role": "user", "content": f"turn {i}"} for i in range(30)]
    started = time.perf_counter()
    estimate_request_tokens({"messages": messages}, counter)
    first = time.perf_counter() - started
    messages.append({"role": "assistant", "content": "noted"})
    turns = []
    for _ in range(5):
        started = time.perf_counter()
        estimate_request_tokens({"messages": messages}, counter)
        turns.append(time.perf_counter() - started)
    return {"tokenizer": tokenizer_name(), "prompt_tokens": count_tokens(text), "first_ms": round(first * 1000, 1),
            "next_turn_median_ms": round(statistics.median(turns) * 1000, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=40000, help="the stub's tokens per 1 s window")
    parser.add_argument("--trials", type=int, default=40, help="trials of the 3-item tiny suite")
    args = parser.parse_args()
    print(json.dumps({"estimate": estimate_cost()}))
    for tpm in (True, False):
        print(json.dumps(run(args.budget, args.trials, tpm)))


if __name__ == "__main__":
    main()
