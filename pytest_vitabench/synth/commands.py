"""What ``vitabench synth`` and the rule/statistics part of ``vitabench validate`` do (the parser is in
:mod:`pytest_vitabench.cli`).

    vitabench synth --preset paper --seed 0 -o suites/paper/tasks.vita.json.gz
    vitabench synth --preset small --users 8 -o /tmp/small.vita.json
    vitabench synth --preset demo                  # the hand-curated demo suite (no seed, no knobs)
    vitabench validate suites/paper/tasks.vita.json.gz [--strict] [--no-stats] [--json report.json]
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from .config import PRESETS, SynthConfig
from .config import preset as preset_config
from .generator import generate, write

#: Where each preset writes by default.
DEFAULT_OUTPUT = {"paper": "suites/paper/tasks.vita.json.gz", "small": "suites/small/tasks.vita.json",
                  "demo": "suites/demo/tasks.json"}
#: What ``--preset`` accepts.
PRESET_NAMES = (*PRESETS, "demo")


def knob_docs() -> dict[str, str]:
    """The help text of each :class:`SynthConfig` knob, read from its docstring (one flag per knob)."""
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


def knob_types() -> dict[str, type]:
    """The Python type of each :class:`SynthConfig` knob (``int``, ``float`` or ``str``)."""
    return {knob.name: {"int": int, "float": float, "str": str}[str(knob.type)] for knob in fields(SynthConfig)}


def synthesize(preset: str, *, output: str | None = None, knobs: dict[str, Any] | None = None) -> Path:
    """Write the suite of ``preset`` with ``knobs`` changed and print what was written.

    Args:
        preset: ``paper``, ``small`` or ``demo`` (the hand-curated demo suite, which takes no knobs).
        output: The file to write (default: :data:`DEFAULT_OUTPUT` of the preset); ``.gz`` compresses.
        knobs: :class:`SynthConfig` fields to override.

    Returns:
        The path written.

    Raises:
        ValueError: Knobs given to ``demo``, or knob values the preset refuses (the message says which).
    """
    knobs = dict(knobs or {})
    started = time.perf_counter()
    if preset == "demo":
        if knobs:
            raise ValueError(f"the demo preset is hand-curated and takes no knobs ({', '.join(knobs)})")
        # Deferred: the spec's models cost every ``vitabench`` command a third of a second to build its parser.
        from .demo import INDENT, build_demo_suite

        suite, indent = build_demo_suite(), INDENT
    else:
        suite, indent = generate(preset_config(preset, **knobs)), None
    path = write(suite, output or DEFAULT_OUTPUT[preset], indent)
    data = path.read_bytes()
    subtasks = sum(len(u["subtasks"]) for u in suite)
    print(f"wrote {path}: {len(suite)} users, {subtasks} subtasks, {len(data):,} bytes, "
          f"sha256 {hashlib.sha256(data).hexdigest()[:12]}, {time.perf_counter() - started:.1f}s")
    return path


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
