"""MkDocs hook: the options reference, generated from the settings model at every build.

A page that holds the line ``<!-- vita-options -->`` gets, in its place, one table row per ``--vita-*``
option (and, under a structured option such as ``--vita-limits``, one per key): the option as ``--help``
spells it, its ini key, its default and the very help text pytest prints. So the reference cannot drift
from ``pytest --help``: both come from :func:`pytest_vitabench.options.settings.options`. A page that holds
``<!-- vita-deviations -->`` gets the official profile's deviation table, from
:data:`pytest_vitabench.official.deviations.DEVIATIONS`.
"""

from __future__ import annotations

from typing import Any

from pytest_vitabench.options.settings import Option, SettingSpec, group_keys, options

MARKER = "<!-- vita-options -->"
DEVIATIONS_MARKER = "<!-- vita-deviations -->"
RENAMED_MARKER = "<!-- vita-renamed -->"


def usage(spec: SettingSpec) -> str:
    """The option with its value placeholder, as in ``--help``: ``--vita-trials N``; a structured option's
    key: ``--vita-limits rpm=VALUE``."""
    meta = spec.meta
    if meta.group:
        return spec.spelling("on|off" if meta.flag else "/".join(meta.choices) if meta.choices else "VALUE")
    if meta.flag:
        return spec.option
    value = meta.metavar or spec.ini.upper()
    return f"{spec.option}[={value}]" if meta.optional_value is not None else f"{spec.option} {value}"


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
    """Every ``--vita-*`` option as a Markdown table, in ``--help`` order; a structured option's keys follow it."""
    rows = ["| option | ini key | default | what it does (the `--help` text) |", "|---|---|---|---|"]
    for option in options():
        rows.extend(_rows(option))
    # The wrapper gives the table its class: docs/css/extra.css keeps option names and ini keys on one line.
    return '<div class="vita-options" markdown>\n\n' + "\n".join(rows) + "\n\n</div>"


def _rows(option: Option) -> list[str]:
    if option.setting is not None:
        spec = option.setting
        return [f"| `{_cell(usage(spec))}` | `{spec.ini}` | {_cell(default_text(spec))} | {_cell(spec.meta.help)} |"]
    assert option.group is not None
    out = [f"| `{option.option} {option.metavar}` | `{option.ini}` | | {_cell(option.help)} |"]
    for spec in group_keys(option.group.name).values():
        out.append(f"| `{_cell(usage(spec))}` | | {_cell(default_text(spec))} | {_cell(spec.meta.help)} |")
    return out


def renamed_table() -> str:
    """The spellings the structured options replaced (each a usage error naming its replacement), old -> new."""
    from pytest_vitabench.options.settings import REMOVED

    rows = ["| old | new |", "|---|---|"]
    for removed in REMOVED:
        old = removed.option if removed.flag else f"{removed.option} {removed.replacement.rsplit('=', 1)[-1]}"
        if removed.replacement.endswith(":ARGS"):
            old = f"{removed.option} ARGS"
        rows.append(f"| `{old}` | `{removed.replacement}` |")
    return "\n".join(rows)


def deviations_table() -> str:
    """The official profile's deviations: what the official harness does, what we do, why, and the switch."""
    from pytest_vitabench.official.deviations import DEVIATIONS

    rows = ["| switch (official value) | official harness | our default | why |", "|---|---|---|---|"]
    for dev in DEVIATIONS:
        rows.append(f"| `{_cell(dev.spelling(dev.official))}` | {_cell(dev.official_does)} | {_cell(dev.we_do)} | "
                    f"{_cell(dev.why)} |")
    return '<div class="vita-options" markdown>\n\n' + "\n".join(rows) + "\n\n</div>"


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Put the generated table where a page asks for it."""
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, options_table())
    if RENAMED_MARKER in markdown:
        markdown = markdown.replace(RENAMED_MARKER, renamed_table())
    if DEVIATIONS_MARKER in markdown:
        markdown = markdown.replace(DEVIATIONS_MARKER, deviations_table())
    return markdown
