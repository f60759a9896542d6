"""``vitabench validate``: load suite files, check their fairness rules and replay their answers
(``docs/suites.md``)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from ..run.solvability import check_solvability
from ..suite.errors import SuiteError
from ..suite.loader import load_suite, read_suite_json
from ..synth.stats import comparison, render_comparison, suite_stats
from ..synth.validator import validate_loaded
from .command import Command, argument


def report_rules(suite: Any, *, strict: bool, stats: bool, json_path: str | None) -> int:
    """Run the validator's rules on a loaded suite and print them; returns 1 when the suite fails."""
    report = validate_loaded(suite)
    print("\n".join(report.summary()[1:]))  # the first line names the file, which the counts above name too
    figures: dict[str, Any] = {}
    if stats:
        valid = {user.index for user in suite.users if user.task is not None}  # broken users have no figures
        figures = suite_stats([entry for i, entry in enumerate(read_suite_json(Path(suite.path))) if i in valid])
        print("  statistics (ours vs the paper, section C.2):")
        print("\n".join("  " + line for line in render_comparison(comparison(figures))))
    if json_path:
        payload = {"path": str(suite.path), "ok": report.ok, "checked": dict(report.checked),
                   "unchecked": report.unchecked,
                   "findings": [{"rule": f.rule, "where": f.where, "message": f.message} for f in report.findings],
                   "statistics": figures}
        Path(json_path).write_text(json.dumps(payload, indent=1, default=str) + "\n", encoding="utf-8")
    return 1 if report.failed(strict=strict) else 0


def validate_command(args: argparse.Namespace) -> int:
    """``vitabench validate``: load each suite file, print its problems and counts, check its rules and answers;
    exit status 0, or 1 when a file (or, with ``--strict``, a rule or an answer) fails."""
    status = 0
    for path in args.paths:
        try:
            suite = load_suite(path, strict=args.strict)
        except SuiteError as exc:
            print(exc.render())
            status = 1
            continue
        for message in suite.warnings:
            print(f"warning: {message}")
        good = [u for u in suite.users if u.task is not None]
        for user in suite.users:
            if user.error is not None:
                print(user.error.render())
                status = 1
        subtasks = [s for u in good for s in u.task.subtasks]  # type: ignore[union-attr]
        domains = Counter(s.domain for s in subtasks)
        skills = Counter(skill for s in subtasks for skill in s.skills)
        rubrics = sum(len(s.rubrics()) for s in subtasks)
        checked = sum(len(s.rubric_checks or []) for s in subtasks)
        print(f"{path}: {suite.format}, {len(good)}/{len(suite.users)} users valid, {len(subtasks)} subtasks "
              f"({', '.join(f'{d} {n}' for d, n in sorted(domains.items()))}; "
              f"{', '.join(f'{k} {n}' for k, n in sorted(skills.items()))}), "
              f"{rubrics} rubrics, {checked} with machine checks, sha256 {suite.sha256[:12]}")
        if args.rules and good:
            status |= report_rules(suite, strict=args.strict, stats=args.stats, json_path=args.json_path)
        if args.answers and good:
            solvability = check_solvability(suite)
            print("\n".join(solvability.lines()))
            status |= int(args.strict and bool(solvability.unsolvable))
    return status


COMMAND = Command(
    "validate", help="check suite files (VitaBench 2.0 or 1.0 format)",
    description="Load suite files (VitaBench 2.0 or 1.0 format), report every problem with its JSON path, print "
                "their counts, and check the fairness rules and statistics of generated suites.",
    run=validate_command, arguments=(
        argument("paths", nargs="+", help="suite files (.json or .json.gz)"),
        argument("--strict", action="store_true",
                 help="treat chronology problems and the paper's complexity controls (merchant, product and "
                      "distractor counts, target position) as errors"),
        argument("--no-answers", dest="answers", action="store_false",
                 help="skip replaying each annotated subtask's answer key (the 'answer' agent under the rules "
                      "judge), which names every unsolvable subtask and why, and which tool check makes one "
                      "unsolvable only under the default tool checks (an error with --strict)"),
        argument("--no-rules", dest="rules", action="store_false", help="only load the suite and print its counts"),
        argument("--no-stats", dest="stats", action="store_false",
                 help="do not print the statistics next to the paper's"),
        argument("--json", dest="json_path", default=None, help="write the findings and statistics as JSON"),
    ))
