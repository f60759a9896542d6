"""``vitabench validate``: load suite files, check their fairness rules and replay their answers
(``docs/suites.md``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ..run.solvability import check_solvability
from ..suite.discovery import DEFAULT_PATTERNS, is_suite_file
from ..suite.errors import SuiteError
from ..suite.loader import load_suite, read_suite_json
from ..synth.stats import comparison, render_comparison, suite_stats
from ..synth.validator import validate_loaded
from .command import Command, argument


def report_rules(suite: Any, *, strict: bool, stats: bool, json_path: str | None) -> int:
    """Run the validator's rules on a loaded suite and print them; returns 1 when the suite fails."""
    report = validate_loaded(suite)
    # The first line names the file, which the counts above name too.
    print("\n".join(report.summary(strict=strict)[1:]))
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
    """``vitabench validate``: load each suite file (by default every suite under the current folder), print its
    problems and counts, check its rules and answers, and end each file with its verdict; exit status 0, 1 when a
    file (or, with ``--strict``, a rule or an answer) fails, or 2 when there is nothing to validate."""
    paths = args.paths or suites_under(Path.cwd())
    if not paths:
        print(f"vitabench validate: no suite files under {Path.cwd()}; name one, e.g. "
              "vitabench validate suites/demo/tasks.json", file=sys.stderr)
        return 2
    if not args.paths:
        names = ", ".join(map(str, paths[:5])) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        print(f"validating the {len(paths)} suite file(s) under {Path.cwd()}: {names}")
    status = 0
    for path in paths:
        failed = validate_file(str(path), args)
        print(f"{path}: {'FAILS' if failed else 'passes'} validation" + ("" if args.strict else " (without --strict)"))
        status |= failed
    return status


def validate_file(path: str, args: argparse.Namespace) -> int:
    """Validate one file, printing what it finds; 1 when it fails."""
    try:
        suite = load_suite(path, strict=args.strict)
    except SuiteError as exc:
        print(exc.render())
        return 1
    status = 0
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


#: Folders never searched for suites: tools' and builds' own files.
_SKIPPED_DIRS = frozenset({"node_modules", "site", "build", "dist", "__pycache__", "site-packages"})


def suites_under(root: Path) -> list[Path]:
    """The suite files under ``root`` as collection finds them (named ``*.vita.json[.gz]`` or shaped like a
    suite), hidden and tool folders (``.venv``, ``.git``, ``node_modules`` ...) left out."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS
                         and not (Path(folder) / d / "pyvenv.cfg").exists())
        for name in sorted(files):
            path = Path(folder) / name
            if is_suite_file(path, DEFAULT_PATTERNS):
                found.append(path.relative_to(root) if path.is_relative_to(root) else path)
    return found


COMMAND = Command(
    "validate", help="check suite files (VitaBench 2.0 or 1.0 format)",
    description="Load suite files (VitaBench 2.0 or 1.0 format), report every problem with its JSON path, print "
                "their counts, and check the fairness rules and statistics of generated suites.",
    run=validate_command, arguments=(
        argument("paths", nargs="*", help="suite files (.json or .json.gz); none: every suite under the current "
                                          "folder (named *.vita.json[.gz] or shaped like a suite)"),
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
