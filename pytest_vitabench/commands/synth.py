"""``vitabench synth``: generate a suite of a preset, deterministically (``docs/suites.md``)."""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..synth.config import PRESETS, SynthConfig
from ..synth.config import preset as preset_config
from ..synth.curated import DEMO_INDENT, build_demo_suite
from ..synth.generator import generate, write
from .command import Argument, Command, argument
from .validate import validate_command

#: Where each preset writes by default.
DEFAULT_OUTPUT = {"paper": "suites/paper/tasks.vita.json.gz", "small": "suites/small/tasks.vita.json",
                  "demo": "suites/demo/tasks.json"}


def _knob_arguments() -> tuple[Argument, ...]:
    """One ``--KNOB`` per :class:`SynthConfig` field, with the field's help text."""
    kinds = {"int": int, "float": float, "str": str}
    return tuple(argument(f"--{knob.name.replace('_', '-')}", dest=f"knob_{knob.name}", metavar=knob.name.upper(),
                          type=kinds[str(knob.type)], default=None, help=knob.metadata["help"])
                 for knob in fields(SynthConfig))


def synthesize(preset: str, *, output: str | None, knobs: dict[str, Any]) -> Path:
    """Write the suite of ``preset`` (``demo``: the hand-curated one) with ``knobs`` (:class:`SynthConfig`
    fields) changed to ``output`` (default: :data:`DEFAULT_OUTPUT`; ``.gz`` compresses); returns the path.

    Raises:
        ValueError: Knobs given to ``demo``, or knob values the preset refuses (the message says which).
    """
    started = time.perf_counter()
    if preset == "demo":
        if knobs:
            raise ValueError(f"the demo preset is hand-curated and takes no knobs ({', '.join(knobs)})")
        suite, indent = build_demo_suite(), DEMO_INDENT
    else:
        suite, indent = generate(preset_config(preset, **knobs)), None
    path = write(suite, output or DEFAULT_OUTPUT[preset], indent)
    data = path.read_bytes()
    subtasks = sum(len(u["subtasks"]) for u in suite)
    print(f"wrote {path}: {len(suite)} users, {subtasks} subtasks, {len(data):,} bytes, "
          f"sha256 {hashlib.sha256(data).hexdigest()[:12]}, {time.perf_counter() - started:.1f}s")
    return path


def synth_command(args: argparse.Namespace) -> int:
    """``vitabench synth``: write the suite of ``--preset`` with the knobs given, then validate it if asked."""
    knobs = {name[len("knob_"):]: value for name, value in vars(args).items()
             if name.startswith("knob_") and value is not None}
    try:
        path = synthesize(args.preset, output=args.output, knobs=knobs)
    except ValueError as exc:
        print(f"vitabench synth: {exc}", file=sys.stderr)
        return 2
    if args.validate:
        return validate_command(argparse.Namespace(paths=[str(path)], strict=True, answers=True, rules=True,
                                                   stats=True, json_path=None))
    return 0


COMMAND = Command(
    "synth", help="generate an English VitaBench 2.0 suite (deterministic for a preset, seed and knobs)",
    description="Generate a suite in the VitaBench 2.0 tasks.json shape with machine-checked rubrics. A .gz output is "
                "compressed deterministically.",
    run=synth_command, arguments=(
        argument("--preset", choices=(*PRESETS, "demo"), default="paper",
                 help="paper: the paper's scale and statistics; small: the same ratios, 4 users x 5 subtasks; "
                      "demo: the hand-curated demo suite"),
        argument("-o", "--output", default=None, help="output file (default: suites/<preset>/...)"),
        argument("--validate", action="store_true", help="validate the written suite"),
        *_knob_arguments(),
    ))
