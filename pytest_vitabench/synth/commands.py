"""The ``vitabench synth`` command and the rule/statistics part of ``vitabench validate``.

    vitabench synth --preset paper --seed 0 -o suites/paper/tasks.vita.json.gz
    vitabench synth --preset small --users 8 -o /tmp/small.vita.json
    vitabench synth --preset demo                  # the hand-curated demo suite (no seed, no knobs)
    vitabench validate suites/paper/tasks.vita.json.gz [--strict] [--no-stats] [--json report.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from .config import PRESETS, SynthConfig

#: Where each preset writes by default.
DEFAULT_OUTPUT = {"paper": "suites/paper/tasks.vita.json.gz", "small": "suites/small/tasks.vita.json",
                  "demo": "suites/demo/tasks.json"}


def add_synth_parser(commands: Any) -> None:
    """Register ``vitabench synth`` (one flag per :class:`SynthConfig` knob)."""
    parser = commands.add_parser(
        "synth", help="generate an English VitaBench 2.0 suite (deterministic for a preset, seed and knobs)",
        description="Generate a suite in the official tasks.json shape with machine-checked rubrics. "
                    "A .gz output is compressed deterministically.")
    parser.add_argument("--preset", choices=[*PRESETS, "demo"], default="paper",
                        help="paper: the paper's scale and statistics; small: the same ratios, 4 users x 5 "
                             "subtasks; demo: the hand-curated demo suite")
    parser.add_argument("-o", "--output", default=None, help="output file (default: suites/<preset>/...)")
    parser.add_argument("--validate", action="store_true", help="validate the written suite")
    docs = _knob_docs()
    for knob in fields(SynthConfig):
        kind = {"int": int, "float": float, "str": str}[str(knob.type)]
        parser.add_argument(f"--{knob.name.replace('_', '-')}", dest=knob.name, type=kind, default=None,
                            help=docs.get(knob.name, ""))
    parser.set_defaults(func=run_synth)


def _knob_docs() -> dict[str, str]:
    docs: dict[str, str] = {}
    lines = (SynthConfig.__doc__ or "").splitlines()
    current = ""
    for line in lines:
        stripped = line.strip()
        head, sep, text = stripped.partition(": ")
        if sep and head.isidentifier() and head in {f.name for f in fields(SynthConfig)}:
            current = head
            docs[current] = text
        elif current and stripped and not stripped.endswith(":"):
            docs[current] += " " + stripped
    return docs


def run_synth(args: argparse.Namespace) -> int:
    knobs = {f.name: getattr(args, f.name) for f in fields(SynthConfig) if getattr(args, f.name) is not None}
    output = Path(args.output or DEFAULT_OUTPUT[args.preset])
    started = time.perf_counter()
    if args.preset == "demo":
        if knobs:
            print(f"vitabench synth: the demo preset is hand-curated and takes no knobs ({', '.join(knobs)})",
                  file=sys.stderr)
            return 2
        from .demo import main as write_demo_suite

        path = write_demo_suite(output)
    else:
        from .config import preset
        from .generator import generate, write

        try:
            config = preset(args.preset, **knobs)
        except ValueError as exc:
            print(f"vitabench synth: {exc}", file=sys.stderr)
            return 2
        path = write(generate(config), output)
    data = path.read_bytes()
    users = json.loads(_plain(path, data))
    subtasks = sum(len(u.get("subtasks") or []) for u in users)
    print(f"wrote {path}: {len(users)} users, {subtasks} subtasks, {len(data):,} bytes, "
          f"sha256 {hashlib.sha256(data).hexdigest()[:12]}, {time.perf_counter() - started:.1f}s")
    if args.validate:
        return validate_files([str(path)], strict=True, stats=True, json_path=None)
    return 0


def _plain(path: Path, data: bytes) -> bytes:
    import gzip

    return gzip.decompress(data) if path.name.endswith(".gz") else data


def add_validate_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-rules", dest="rules", action="store_false",
                        help="only load the suite and print its counts")
    parser.add_argument("--no-stats", dest="stats", action="store_false",
                        help="do not print the statistics next to the paper's")
    parser.add_argument("--json", dest="json_path", default=None, help="write the findings and statistics as JSON")


def report_rules(suite: Any, *, strict: bool, stats: bool, json_path: str | None) -> int:
    """Run the validator's rules on a loaded suite and print them; returns 1 when the suite fails."""
    from .stats import comparison, render_comparison, suite_stats
    from .validator import validate_loaded

    report = validate_loaded(suite)
    for line in report.summary()[1:]:
        print(line)
    figures: dict[str, Any] = {}
    if stats:
        from ..suite.loader import read_suite_json

        valid = {user.index for user in suite.users if user.task is not None}  # broken users have no figures
        figures = suite_stats([entry for i, entry in enumerate(read_suite_json(Path(suite.path))) if i in valid])
        print("  statistics (ours vs the paper, section C.2):")
        for line in render_comparison(comparison(figures)):
            print("  " + line)
    if json_path:
        payload = {"path": str(suite.path), "ok": report.ok, "checked": dict(report.checked),
                   "unchecked": report.unchecked,
                   "findings": [{"rule": f.rule, "where": f.where, "message": f.message} for f in report.findings],
                   "statistics": figures}
        Path(json_path).write_text(json.dumps(payload, indent=1, default=str) + "\n", encoding="utf-8")
    return 1 if report.failed(strict=strict) else 0


def validate_files(paths: list[str], *, strict: bool, stats: bool, json_path: str | None) -> int:
    """``vitabench validate`` for callers outside the CLI parser (``synth --validate``)."""
    from ..cli import main

    argv = ["validate", *paths] + (["--strict"] if strict else []) + ([] if stats else ["--no-stats"])
    return main(argv + (["--json", json_path] if json_path else []))
