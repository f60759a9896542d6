"""MkDocs hook: the CLI reference, generated from the ``vitabench`` parser at every build.

A page that holds the line ``<!-- vita-cli -->`` gets, in its place, one section per ``vitabench`` command
with the very ``--help`` text the command prints. So the reference cannot drift from the command.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from pytest_vitabench.commands.cli import build_parser

MARKER = "<!-- vita-cli -->"


def _help(parser: argparse.ArgumentParser) -> str:
    """A parser's help at a fixed width, so the page does not depend on the terminal that built it."""
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        return parser.format_help().rstrip()
    finally:
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns


def commands() -> list[tuple[str, argparse.ArgumentParser]]:
    """``(name, parser)`` of every subcommand, in the order ``vitabench --help`` lists them."""
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(action.choices.items())


def cli_reference() -> str:
    """Every ``vitabench`` command as a Markdown section with its ``--help`` text."""
    out = []
    for name, sub in commands():
        out.append(f"## `vitabench {name}`\n\n```text\n{_help(sub)}\n```\n")
    return "\n".join(out)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Put the generated sections where a page asks for them."""
    return markdown.replace(MARKER, cli_reference()) if MARKER in markdown else markdown
