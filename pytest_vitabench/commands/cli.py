"""The ``vitabench`` command: check suite files and read reports outside pytest.

    vitabench validate suites/demo/tasks.json     # load, check the fairness rules, replay the answers, compare
    vitabench synth --preset paper --seed 0 -o suites/paper/tasks.vita.json.gz   # generate a suite
    vitabench show run.json                       # the metrics table of a saved report
    vitabench rejudge run.json --vita-judge-model gpt-4.1   # score saved trajectories again
    vitabench judge-audit run.json --vita-judge-model gpt-4.1 --repeats 3   # how far the judge can be trusted
    vitabench estimate suites/demo/tasks.json     # tokens and cost of the paper's LLM configuration
    vitabench view run.json                       # the run in the browser (one self-contained HTML file)
    vitabench plot run.json -o plots/             # the paper's figures as PNG/SVG
    vitabench compare base.json new.json          # paired comparison: regressed and fixed subtasks
    vitabench merge .vitabench/runs/RUN_ID -o run.json   # the shards of a run as one report
    vitabench fetch                               # the VitaBench 2.0 tasks.json from the Hugging Face Hub

Run the benchmark itself with pytest (``pytest suites/demo``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

from ..version import __version__
from . import cache, compare, estimate, fetch, judge_audit, merge, plot, rejudge, show, synth, validate, view
from .command import Command

#: Every subcommand, in the order ``vitabench --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    validate.COMMAND, show.COMMAND, estimate.COMMAND, rejudge.COMMAND, judge_audit.COMMAND, synth.COMMAND,
    view.COMMAND, plot.COMMAND, compare.COMMAND, merge.COMMAND, cache.COMMAND, fetch.COMMAND,
)


def _add(commands: argparse._SubParsersAction[argparse.ArgumentParser], command: Command) -> None:
    # A description written on several lines is laid out as written; a one-line one is wrapped to the terminal.
    layout = argparse.RawDescriptionHelpFormatter if "\n" in command.description else argparse.HelpFormatter
    parser = commands.add_parser(command.name, help=_plain(command.help), description=_plain(command.description),
                                 formatter_class=layout)
    for declared in command.arguments:
        options = dict(declared.options)
        if options.get("help"):
            options["help"] = _plain(options["help"])
        parser.add_argument(*declared.flags, **options)
    if command.subcommands:
        actions = parser.add_subparsers(dest=f"{command.name}_command", required=True)
        for sub in command.subcommands:
            _add(actions, sub)
    if command.run is not None:
        parser.set_defaults(func=command.run)


def build_parser() -> argparse.ArgumentParser:
    """The ``vitabench`` parser with every subcommand of :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(prog="vitabench", description=_plain(__doc__ or ""),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"vitabench {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        _add(commands, command)
    return parser


def _plain(text: str) -> str:
    """Docstring markup out of ``--help`` text: ````x```` and :class:`~a.b.C` read as x and C."""
    text = re.sub(r":(?:class|func|meth|mod|attr|data):`~?([^`]+)`", lambda m: m.group(1).rsplit(".", 1)[-1], text)
    return text.replace("``", "")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status, or 141 (as a shell reports SIGPIPE) when the reader of its output
    went away (``vitabench validate ... | head -2``)."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except BrokenPipeError:
        # The rest of the output is unwanted, which is no error; stdout goes nowhere from here so that the
        # interpreter's final flush does not fail again on the closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
