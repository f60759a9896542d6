"""``vitabench SUBCOMMAND --help`` is plain text: no docstring markup, every option explained."""

from __future__ import annotations

import re

import pytest

from pytest_vitabench.commands.cli import build_parser, main

SUBCOMMANDS = ["validate", "show", "estimate", "rejudge", "synth", "view", "plot", "compare", "fetch"]
_MARKUP = re.compile(r"``|:(class|func|meth|mod|attr|data):`|REFERENCE\.md|§")


def help_text(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", [None, *SUBCOMMANDS])
def test_help_is_plain_text(capsys, command):
    text = help_text(capsys, *([command] if command else []))
    assert not _MARKUP.search(text), _MARKUP.search(text)


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_option_and_argument_has_help(command):
    parser = build_parser()
    sub = next(a for a in parser._actions if getattr(a, "choices", None) and command in a.choices).choices[command]
    missing = [a.dest for a in sub._actions if a.dest != "help" and not a.help]
    assert missing == []
    assert sub.description  # "vitabench X --help" says what the command does


def test_estimate_rejects_bad_trials_naming_the_option(capsys):
    with pytest.raises(SystemExit) as info:
        main(["estimate", "suites/demo/tasks.json", "--vita-trials", "0"])
    assert info.value.code == 2
    assert "--vita-trials must be a whole number >= 1, got 0" in capsys.readouterr().err


def test_every_subcommand_is_registered_by_the_cli_module_only():
    """cli.py owns every parser: no other module of the package builds one (they expose plain functions)."""
    from _paths import REPO_ROOT

    builders = sorted(str(path.relative_to(REPO_ROOT)) for path in (REPO_ROOT / "pytest_vitabench").rglob("*.py")
                      if "ArgumentParser(" in path.read_text(encoding="utf-8") or "add_parser(" in
                      path.read_text(encoding="utf-8"))
    assert builders == ["pytest_vitabench/commands/cli.py"]
    listed = next(a for a in build_parser()._actions if getattr(a, "choices", None)).choices
    assert set(SUBCOMMANDS) <= set(listed)


def test_every_vita_option_of_a_command_is_a_run_setting():
    """A command's --vita-* options come from the settings model (command.setting_arguments): the same name,
    destination and check as the run's, never a copy declared by hand."""
    from pytest_vitabench.options.settings import options

    settings = {option.option: option.ini for option in options()}
    commands = next(a for a in build_parser()._actions if getattr(a, "choices", None)).choices
    for name, parser in commands.items():
        for action in parser._actions:
            for flag in (f for f in action.option_strings if f.startswith("--vita-")):
                assert settings.get(flag) == action.dest, (name, flag)


def test_the_cli_module_only_lists_the_commands_their_modules_declare():
    from pytest_vitabench.commands.cli import COMMANDS
    from pytest_vitabench.commands.command import Command

    assert all(isinstance(command, Command) for command in COMMANDS)
    assert [command.name for command in COMMANDS] == [
        "validate", "show", "estimate", "rejudge", "judge-audit", "synth", "view", "plot", "compare", "merge",
        "cache", "fetch"]
    runs = [command.run or command.subcommands[0].run for command in COMMANDS]
    assert "pytest_vitabench.commands.cli" not in {getattr(run, "__module__", None) for run in runs}


def test_each_command_is_one_module_named_after_it():
    """commands/NAME.py declares COMMAND, the command NAME (judge_audit.py: judge-audit), and runs it; the package
    holds nothing else but the parser (cli.py) and the declaration (command.py)."""
    import importlib

    from _paths import REPO_ROOT

    from pytest_vitabench.commands.cli import COMMANDS

    modules = {f"{command.name.replace('-', '_')}" for command in COMMANDS}
    files = {path.stem for path in (REPO_ROOT / "pytest_vitabench" / "commands").glob("*.py")}
    assert files == modules | {"__init__", "cli", "command"}
    for command in COMMANDS:
        module = importlib.import_module(f"pytest_vitabench.commands.{command.name.replace('-', '_')}")
        assert module.COMMAND is command
        runs = [command.run] if command.run else [sub.run for sub in command.subcommands]
        assert all(run is not None and run.__module__ == module.__name__ for run in runs), command.name
