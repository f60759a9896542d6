"""The one settings declaration: every field has its option, ini key and help, and reaches the report."""

from __future__ import annotations

import pytest

from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.options.settings import ORDER, RunSettings, group_keys, options, parse, spec, specs


def options_in_help_order():
    """Every setting in the order --help and the reference show them: a structured option's keys in its place."""
    return [item for option in options() for item in
            ([option.setting] if option.setting is not None else group_keys(option.group.name).values())]


def test_every_setting_has_an_option_an_ini_key_and_help_and_is_reported():
    config = RunConfig()
    reported = config.report_config()
    # each component's part declares its fields; the run's settings compose them, in --help order
    assert [s.name for s in specs()] == list(ORDER)
    assert sorted(RunConfig.model_fields) == sorted(RunSettings.NAMES) == sorted(ORDER)
    for item in specs():
        assert item.option.startswith("--vita-") and item.ini.startswith("vita_"), item.name
        # an option of its own, or a key of a structured option: --vita-limits rpm
        assert item.option == "--" + item.ini.replace("_", "-") + (f" {item.key}" if item.meta.group else "")
        assert len(item.meta.help) > 20, item.name
        if item.meta.scope == "secret":
            assert item.name not in reported, item.name
        else:
            assert item.name in reported, item.name
        if item.meta.scope in ("score", "endpoint"):
            assert item.name in config.manifest(), item.name
        if isinstance(item.default, int) and not isinstance(item.default, bool) and item.meta.parse is None:
            assert item.meta.minimum is not None, f"{item.name}: a whole number needs its minimum"
    own = [s.ini for s in specs() if not s.meta.group]
    assert len(set(own)) == len(own) and len({s.option for s in specs()}) == len(specs())


def test_at_most_37_options_and_the_help_fits_a_screen():
    from pytest_vitabench.options.settings import options

    # 35, and --vita-budget-usd and --vita-early-stop, which issue 33 names as options of their own
    assert len(options()) <= 37
    for option in options():  # one line of help: --help stays short, the details are in the docs
        assert len(option.help) <= 56 or option.group is not None, option.option


@pytest.mark.parametrize("old, new", [
    ("--vita-search-style", "--vita-deviation search="), ("--vita-rpm", "--vita-limits rpm="),
    ("--vita-judge-batch", "--vita-judge-args batch=on"), ("--vita-user-model-args", "--vita-model-args user:"),
    ("--vita-rag-top-k", "--vita-memory-args rag-top-k="), ("--vita-full-context-tokens",
                                                           "--vita-memory-args full-context-tokens="),
])
def test_a_removed_spelling_names_its_replacement(old, new):
    from pytest_vitabench.options.settings import REMOVED

    removed = {r.option: r for r in REMOVED}
    assert new in removed[old].message()


def test_the_report_config_carries_cache_timeout_and_rate_settings_but_no_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-0123456789abcdefghij")
    config = RunConfig.from_options({"vita_limits": ["rpm=30,timeout=7.5", "in-flight=4,circuit-breaker=0"],
                                     "vita_cache": "all"})
    block = config.report_config()
    assert (block["rpm"], block["timeout"], block["cache"], block["max_concurrency"], block["circuit_breaker"]) == \
        (30, 7.5, "all", 4, 0)
    assert block["api_key_env"] == "OPENAI_API_KEY" and "SECRET" not in str(block)
    # how the run goes is reported, but is no part of the run's identity (resume compares the manifest)
    assert "rpm" not in config.manifest() and "timeout" not in config.manifest()


def test_ini_defaults_are_the_documented_ones():
    defaults = {s.name: s.ini_default for s in specs()}
    assert defaults["trials"] == "4" and defaults["timeout"] == "120" and defaults["cache"] == "judge"
    assert defaults["rag_threshold"] == "auto" and defaults["concurrency"] == "auto"
    assert defaults["full_context_max_tokens"] == "102400" and defaults["rpm_window"] == "60"
    assert defaults["strict"] is False
    # a deviation switch left unset takes --vita-profile's value, so its ini key has no default of its own
    assert defaults["max_steps"] is None and defaults["judge_records"] is None


@pytest.mark.parametrize("name, raw, message", [
    ("trials", "x", "--vita-trials must be a whole number >= 1, got 'x'"),
    ("concurrency", "0", "--vita-concurrency must be a whole number >= 1 or 'auto', got 0"),
    ("timeout", "-1", "--vita-limits timeout must be positive"),
    ("rpm_window", "soon", "--vita-limits window must be a number of seconds"),
    ("cache", "jugde", "did you mean 'judge'"),
    ("preflight", "maybe", "--vita-preflight must be one of on, off"),
    ("progress", "often", "--vita-progress must be auto, off or a number"),
    ("fail_regression", "2", "--vita-fail-regression must be between 0 and 1"),
    ("strict", "perhaps", "--vita-strict must be true or false"),
    ("rag_summary", "perhaps", "--vita-memory-args rag-summary must be true or false"),
])
def test_bad_values_name_the_option(name, raw, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(spec(name), raw)


def test_cross_setting_rules():
    with pytest.raises(ValueError, match="--vita-fail-regression needs --vita-baseline"):
        RunConfig.from_options({"vita_fail_regression": "0.02"})
    assert RunConfig.from_options({"vita_model": "gpt-x"}).memory_model == "gpt-x"
    assert RunConfig.from_options({"vita_model": "reference"}).memory_model is None
    official = RunConfig.from_options({"vita_profile": "official", "vita_max_steps": "50"})
    assert official.max_steps == 50 and official.agent_prompt == "official" and official.tool_checks == []


def test_resume_reads_true_false_and_run_ids():
    assert [parse(spec("resume"), v) for v in ("true", "off", "latest", "runs/abc")] == \
        ["latest", None, "latest", "runs/abc"]


def test_the_minimum_holds_for_a_config_built_directly():
    with pytest.raises(ValueError, match="--vita-memory-args rag-top-k must be a whole number >= 1"):
        RunConfig(rag_top_k=0)


def test_a_baseline_comparison_ignores_how_the_runs_went():
    from pytest_vitabench.report.compare import changed_settings

    base = {"model": "a", "rpm": 0, "report": "a.json", "timeout": 120, "base_url": "http://a/v1"}
    assert changed_settings(base, {"model": "a", "rpm": 60, "report": "b.json", "timeout": 30,
                                   "base_url": "http://b/v1"}) == {}
    assert changed_settings(base, {**base, "model": "b"}) == {"model": ["a", "b"]}


def test_the_options_reference_has_a_row_per_setting_with_its_help():
    from _docs import options_hook, page

    assert options_hook().MARKER in page("reference.md")
    table = options_hook().options_table()
    usage = options_hook().usage
    lines = [line for line in table.splitlines() if line.startswith("| `")]
    settings_rows = [line for line in lines
                     if not any(f"`{o.option} {o.metavar}`" in line for o in options() if o.group is not None)]
    assert len(settings_rows) == len(specs())
    for row, s in zip(settings_rows, options_in_help_order(), strict=True):  # every setting, in --help order
        assert f"`{usage(s).replace('|', chr(92) + '|')}`" in row and s.meta.help.replace("|", "\\|") in row, s.option
        if not s.meta.group:
            assert f"`{s.ini}`" in row


def test_the_settings_and_their_parsers_import_only_the_standard_library():
    """Every parser the settings use sits below them: registering the options imports no feature module."""
    import subprocess
    import sys

    code = ("import sys, pytest_vitabench.options.settings; "
            "print(sorted(m for m in sys.modules if m.startswith('pytest_vitabench.') "
            "and not hasattr(sys.modules[m], '__path__')))")  # modules only, wherever the layout puts them
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == str(sorted(["pytest_vitabench.options.settings", "pytest_vitabench.options.declare",
                                         "pytest_vitabench.options.parts",
                                         "pytest_vitabench.options.values", "pytest_vitabench.options.model_args",
                                         "pytest_vitabench.options.fail_under", "pytest_vitabench.formulas",
                                         "pytest_vitabench.options.spelling"]))


def test_each_part_is_a_frozen_view_of_the_run_configuration():
    from dataclasses import FrozenInstanceError

    from pytest_vitabench.options.parts import JudgeSettings, MemorySettings

    config = RunConfig.from_options({"vita_judge_model": "m", "vita_judge_args": ["votes=3"]})
    judge = JudgeSettings.of(config)
    assert isinstance(config, JudgeSettings) and judge == JudgeSettings(judge_model="m", judge_votes=3)
    assert not hasattr(judge, "memory") and MemorySettings().memory == ["full_context"]  # declared defaults
    with pytest.raises(FrozenInstanceError):
        judge.judge_votes = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="no settings memory"):
        JudgeSettings(memory=["rag"])


def test_the_offline_role_names_the_parsers_know_are_the_built_in_roles():
    from pytest_vitabench.agents import BUILTIN_AGENTS
    from pytest_vitabench.judges.registry import BUILTIN
    from pytest_vitabench.options.values import BUILTIN_ROLE_NAMES
    from pytest_vitabench.users import make_user_simulator

    assert list(BUILTIN_ROLE_NAMES["--vita-model"]) == list(BUILTIN_AGENTS)
    assert list(BUILTIN_ROLE_NAMES["--vita-judge-model"]) == list(BUILTIN)
    for name in BUILTIN_ROLE_NAMES["--vita-user-model"]:
        assert make_user_simulator(name).name == name  # offline: no client needed
