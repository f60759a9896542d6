"""A ``vitabench`` subcommand, declared beside the code that does its work: name, help, arguments, run.

A command's ``--vita-*`` options are the run's settings (:func:`setting_arguments`), read back into a
:class:`~pytest_vitabench.options.config.RunConfig` by :func:`run_config`, so a command cannot drift from the run.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..options.config import RunConfig
from ..options.settings import GROUPS, Group, group_keys, group_values, options, parse, spec
from ..options.settings import given as read_given
from ..options.values import whole_number


@dataclass(frozen=True)
class Argument:
    """One ``add_argument`` call: its flags (or the positional name) and keyword arguments."""

    flags: tuple[str, ...]
    options: Mapping[str, Any]


def argument(*flags: str, **options: Any) -> Argument:
    return Argument(flags, options)


@dataclass(frozen=True)
class Command:
    """A subcommand of ``vitabench``: ``help`` is its line in ``vitabench --help``, ``description`` its
    ``--help`` text (laid out as written when it has several lines); ``run`` returns the exit status."""

    name: str
    help: str
    description: str
    run: Callable[[argparse.Namespace], int] | None = None
    arguments: tuple[Argument, ...] = ()
    subcommands: tuple[Command, ...] = ()


def _argparse_type(check: Callable[[str], Any], *, keep_raw: bool = False) -> Callable[[str], Any]:
    """An argparse ``type`` of a parser whose ``ValueError`` names the option (argparse then exits 2 at once);
    ``keep_raw``: the value is the text, only checked (:func:`run_config` reads it again)."""

    def convert(raw: str) -> Any:
        try:
            value = check(raw)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return raw if keep_raw else value

    return convert


def setting_arguments(*names: str, checked: tuple[str, ...] = (),
                      **overrides: Mapping[str, Any]) -> tuple[Argument, ...]:
    """The ``--vita-*`` options of the settings ``names``, as the run declares them.

    Each option's destination is its ini key and its default ``None``: not given, :func:`run_config` takes the
    setting's default, as a run does. A setting that is a key of a structured option (``--vita-limits rpm``)
    brings that option, taking only the keys of ``names``.

    Args:
        checked: The names whose values argparse checks while it parses (a bad one exits 2 before the command
            runs).
        overrides: Keyword arguments of ``add_argument`` by field name (or structured option name, e.g.
            ``limits``), for a command whose option means a little more or less than the run's.
    """
    out = []
    keys: dict[str, list[str]] = {}
    for item in (spec(name) for name in names):
        if item.meta.group:
            keys.setdefault(item.meta.group, []).append(item.key)
            continue
        options: dict[str, Any] = {"dest": item.ini, "default": None, "help": item.meta.help}
        if item.meta.flag:
            options["action"] = "store_true"
        else:
            if item.name in checked:
                options["type"] = _argparse_type(functools.partial(parse, item), keep_raw=True)
            if item.meta.choices:
                options["choices"] = item.meta.choices
            if item.meta.metavar:
                options["metavar"] = item.meta.metavar
        options.update(overrides.get(item.name, {}))
        out.append(Argument((item.option,), options))
    for name, allowed in keys.items():
        group = GROUPS[name]
        options = {"dest": group.ini, "default": None, "action": "append", "metavar": group.metavar,
                   "type": _argparse_type(functools.partial(_only_keys, group, tuple(allowed)), keep_raw=True),
                   "help": f"{group.help.split(':')[0]}: " + ", ".join(allowed)}
        options.update(overrides.get(name, {}))
        out.append(Argument((group.option,), options))
    return tuple(out)


def _only_keys(group: Group, allowed: tuple[str, ...], raw: str) -> None:
    """Checks one value of a structured option: its keys parse and are the command's."""
    keys = group_keys(group.name)
    for name in group_values(group, raw):
        key = next(key for key, item in keys.items() if item.name == name)
        if key not in allowed:
            raise ValueError(f"{group.option} {key} does not apply to this command; it takes {', '.join(allowed)}")


def run_config(args: argparse.Namespace) -> RunConfig:
    """The settings a command was given (see :func:`setting_arguments`), the others at their defaults; a
    ``ValueError`` naming the option for what the run would refuse."""
    given = vars(args)
    return RunConfig.from_options({option.ini: given.get(option.ini) for option in options()})


def given_settings(args: argparse.Namespace) -> frozenset[str]:
    """The names of the settings a command was given explicitly."""
    given = vars(args)
    return frozenset(read_given(lambda ini: given.get(ini)))


def positive(option: str) -> Callable[[str], int]:
    """An argparse ``type``: a whole number of at least 1, an error naming ``option`` otherwise."""
    return _argparse_type(lambda raw: whole_number(option, raw, minimum=1, default=1))
