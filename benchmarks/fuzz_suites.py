"""Fuzz the suite loader, ``vitabench validate`` and the run with thousands of broken suites; print the counts.

    python benchmarks/fuzz_suites.py                  # 2,000 cases, seed 0
    python benchmarks/fuzz_suites.py --cases 10000 --seed 7

Each case is one defect (see ``tests/_fuzz.py``: deleted, retyped and duplicated fields at random JSON paths,
keys repeated with other values, NaN and infinities, negative and zero numbers, 5,000-digit integers,
200,000-character strings, 100,000-level nesting, bad ids, domains and times, truncation, invalid UTF-8,
corrupt gzip) applied to two users of the demo suite. Each case is loaded, validated with
``vitabench validate``, and every user that loads is run with the offline reference agent; it counts as

* clear error: a SuiteError naming the file and a JSON path (the unbroken user still loads unchanged), and
  ``vitabench validate`` prints the same error;
* ran unchanged: it loads and every reward equals the unbroken suite's, or a warning names the user;
* traceback: any other exception, anywhere (must be 0);
* silent meaning change: it loads with no error or warning for the user but a reward changed (must be 0).

Exit status 1 when a traceback or a silent change occurred; each one is printed with the ``Case(...)`` that
reproduces it (add it to ``FOUND`` in ``tests/suite/test_fuzz.py`` once fixed).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _fuzz import MUTATIONS, Case, Judge  # noqa: E402

LABELS = {"error": "clear errors", "unchanged": "ran unchanged (incl. warned)", "traceback": "tracebacks",
          "silent": "silent meaning changes"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="vita-fuzz-") as workdir:
        judge = Judge(Path(workdir))
        counts: Counter[str] = Counter()
        by_mutation: dict[str, Counter[str]] = {m: Counter() for m in MUTATIONS}
        warned = 0
        bad = []
        started = time.perf_counter()
        for _ in range(args.cases):
            case = Case(rng.choice(MUTATIONS), steps=tuple(rng.randrange(1000) for _ in range(rng.randrange(1, 9))),
                        pick=rng.randrange(10**6))
            verdict = judge.judge_case(case)
            counts[verdict.outcome] += 1
            by_mutation[case.mutation][verdict.outcome] += 1
            warned += verdict.warned
            if verdict.outcome in ("traceback", "silent"):
                bad.append((case, verdict))
        elapsed = time.perf_counter() - started
    print(f"fuzz_suites: {args.cases} cases, seed {args.seed}, {elapsed:.0f} s "
          f"({1000 * elapsed / max(args.cases, 1):.0f} ms per case), load {os.getloadavg()[0]:.2f}")
    for outcome, label in LABELS.items():
        extra = f" ({warned} with a warning naming the user)" if outcome == "unchanged" else ""
        print(f"  {label:<30} {counts[outcome]:>6}{extra}")
    print("  by mutation: " + ", ".join(
        f"{m} {sum(c.values())} ({c['error']} err, {c['unchanged']} ok)" for m, c in by_mutation.items()))
    print(f"  reproduce: python benchmarks/fuzz_suites.py --cases {args.cases} --seed {args.seed}")
    for case, verdict in bad:
        print(f"\n{verdict.outcome}: {case.command()} at {case.where or 'the file'}\n{verdict.detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
