"""MkDocs hook: the options reference, generated from the settings model at every build.

A page that holds the line ``<!-- vita-options -->`` gets, in its place, one table row per
``RunSettings`` field: the option as ``--help`` spells it, its ini key, its default and the very help
text pytest prints. So the reference cannot drift from ``pytest --help``: both come from
:func:`pytest_vitabench.settings.specs`.
"""

from __future__ import annotations

from typing import Any

from pytest_vitabench.settings import SettingSpec, specs

MARKER = "<!-- vita-options -->"


def usage(spec: SettingSpec) -> str:
    """The option with its value placeholder, as in ``--help``: ``--vita-trials VITA_TRIALS``."""
    meta = spec.meta
    if meta.flag:
        return spec.option
    value = meta.metavar or spec.ini.upper()
    return f"{spec.option} [{value}]" if meta.optional_value is not None else f"{spec.option} {value}"


def default_text(spec: SettingSpec) -> str:
    """What the ini key defaults to, in words for the settings that have no plain default."""
    if spec.meta.official is not None:
        return "set by `--vita-profile`"
    if spec.meta.flag:
        return "off"
    shown = spec.ini_default
    return f"`{shown}`" if shown not in (None, "") else "none"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def options_table() -> str:
    """Every ``--vita-*`` option as a Markdown table, in ``--help`` order."""
    rows = ["| option | ini key | default | what it does (the `--help` text) |", "|---|---|---|---|"]
    for spec in specs():
        rows.append(f"| `{_cell(usage(spec))}` | `{spec.ini}` | {_cell(default_text(spec))} | "
                    f"{_cell(spec.meta.help)} |")
    # The wrapper gives the table its class: docs/css/extra.css keeps option names and ini keys on one line.
    return '<div class="vita-options" markdown>\n\n' + "\n".join(rows) + "\n\n</div>"


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Put the generated table where a page asks for it."""
    return markdown.replace(MARKER, options_table()) if MARKER in markdown else markdown
