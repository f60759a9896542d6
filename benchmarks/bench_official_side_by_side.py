"""Side by side with the official harness: identical requests per role and memory backend.

Runs the official VitaBench 2.0 harness (a temporary copy of ``../shared/official/VitaBench-2.0`` with the
python in ``VITA_OFFICIAL_PYTHON``) and our plugin under ``--vita-profile official`` on the same slice of
``suites/paper`` against one deterministic stub on 127.0.0.1 (``tests/_side_by_side.py``), and prints, per memory
backend and role, "identical N of M" and each differing request's first differing field.

    VITA_OFFICIAL_PYTHON=/tmp/official/venv/bin/python python benchmarks/bench_official_side_by_side.py \
        --memory full_context --users 2 --subtasks 2 [--judge-mode full]

Both harnesses get the same models.yaml (``tests/_side_by_side.py: MODEL_ENTRIES``: per-role ``max_tokens`` ...).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests")]

import _side_by_side as sbs  # noqa: E402

#: The official ``--evaluation-type`` of our ``--vita-judge-args mode``.
EVALUATION = {"window": "trajectory", "full": "trajectory_full_traj_rubric"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", default="full_context", help="comma-separated backends (default: full_context)")
    parser.add_argument("--language", default="en", choices=("en", "zh"))
    parser.add_argument("--users", type=int, default=2)
    parser.add_argument("--subtasks", type=int, default=2)
    parser.add_argument("--judge-mode", default="window", choices=("window", "full"),
                        help="our --vita-judge-args mode; full runs the official trajectory_full_traj_rubric "
                             "evaluation")
    parser.add_argument("--brief", action="store_true", help="counts only, no per-request differences")
    args = parser.parse_args()
    reason = sbs.skip_reason()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    tasks = sbs.paper_slice(args.users, args.subtasks)
    for memory in args.memory.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            official = sbs.run_official(tasks, Path(tmp), memory=memory, language=args.language,
                                        evaluation=EVALUATION[args.judge_mode])
            ours = sbs.run_ours(tasks, Path(tmp), memory=memory, language=args.language,
                                extra=["--vita-judge-args", f"mode={args.judge_mode}"])
        print(f"== memory {memory}, language {args.language}, judge {args.judge_mode}, "
              f"{args.users} users x {args.subtasks} subtasks, 1 trial "
              f"(official {official.seconds:.1f} s rc={official.returncode}, ours {ours.seconds:.1f} s "
              f"rc={ours.returncode}; wall clock on a shared 2-core machine)")
        for run, name in ((official, "official"), (ours, "ours")):
            if run.returncode not in (0, 1) or not run.requests:
                print(f"  {name} run output:\n{run.output}")
        print(sbs.table(sbs.compare(ours, official), details=not args.brief))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
