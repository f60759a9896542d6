"""``--vita-profile`` and the per-deviation switches, ``--vita-model-args``, comparability with the leaderboard."""

from __future__ import annotations

import pytest
from _fake_official import make_checkout

from pytest_vitabench.official.deviations import DEVIATIONS
from pytest_vitabench.options.model_args import parse_model_args
from pytest_vitabench.options.settings import read_settings, specs
from pytest_vitabench.options.values import TOOL_CHECKS, tool_checks
from pytest_vitabench.run.comparability import OWN_WORDING, comparability
from pytest_vitabench.run.wiring import Benchmark


def bench(tmp_path, **options) -> Benchmark:
    return Benchmark(options, rootdir=tmp_path, state_dir=str(tmp_path / "llm"))


def test_default_profile_keeps_our_fixes(tmp_path):
    config = bench(tmp_path).config
    assert config.profile == "default" and config.max_steps == 100 and config.judge_records is True
    assert config.tool_checks == list(TOOL_CHECKS) and config.rag_style == "default"
    assert config.agent_prompt == "default" and config.outcome_style == "default" and config.language == "auto"


def test_official_profile_sets_every_switch_to_the_official_value(tmp_path):
    config = bench(tmp_path, vita_profile="official").config
    assert config.max_steps == 300 and config.judge_records is False and config.tool_checks == []
    assert (config.rag_style, config.agent_prompt, config.outcome_style) == ("official",) * 3
    for dev in DEVIATIONS:  # every deviation has a switch the official profile sets
        value = getattr(config, dev.field)
        assert value == (tool_checks(dev.option, dev.official) if dev.field == "tool_checks" else
                         (dev.official == "on") if dev.field == "judge_records" else dev.official), dev.field


def test_each_switch_wins_over_the_profile(tmp_path):
    config = bench(tmp_path, vita_profile="official", vita_max_steps="50",
                   vita_deviation=["judge-records=on,tool-checks=stock,reservation", "agent-prompt=default"]).config
    assert config.max_steps == 50 and config.judge_records is True and config.tool_checks == ["stock", "reservation"]
    assert config.agent_prompt == "default" and config.rag_style == "official"


@pytest.mark.parametrize("options, message", [
    ({"vita_profile": "paper"}, "--vita-profile must be one of default, official"),
    ({"vita_deviation": "tool-checks=stock,teleport"}, "unknown check"),
    ({"vita_deviation": "judge-records=maybe"}, "--vita-deviation judge-records must be on or off"),
    ({"vita_deviation": "rag=fancy"}, "--vita-deviation rag must be one of"),
    ({"vita_language": "fr"}, "--vita-language must be"),
    ({"vita_model_args": "{not json"}, "not valid JSON"),
    ({"vita_deviation": "search=fuzzy"}, "--vita-deviation search must be one of default, official, got 'fuzzy'"),
    ({"vita_deviation": "tool-results=repr"}, "--vita-deviation tool-results must be one of default, official"),
    ({"vita_deviation": "episode=tau2"}, "--vita-deviation episode must be one of default, official"),
    ({"vita_deviation": "metrics=paper"}, "--vita-deviation metrics must be one of default, official"),
])
def test_bad_switch_values_name_the_option(tmp_path, options, message):
    with pytest.raises(ValueError, match=message):
        bench(tmp_path, **options)


def test_comparability_names_every_reason(tmp_path):
    offline = bench(tmp_path, vita_profile="official", vita_trials="1").config
    reasons = comparability(offline)
    assert "rules judge: offline" in reasons and "scripted user: offline" in reasons
    assert any("1 trial" in r for r in reasons)
    default = bench(tmp_path, vita_trials="4").config
    reasons = comparability(default)
    assert "--vita-max-steps 100" in reasons and any(r.startswith("--vita-deviation tool-checks") for r in reasons)
    assert "--vita-deviation agent-prompt=default" in reasons
    assert comparability(bench(tmp_path, vita_profile="official").config, tokenizer="regex")[-1].startswith(
        "memory budgets counted with the regex estimate")


def test_an_official_llm_run_with_our_own_wording_is_not_comparable(tmp_path, monkeypatch):
    monkeypatch.setenv("VITA_TEST_KEY", "k")
    b = bench(tmp_path, vita_profile="official", vita_model="m", vita_user_model="u", vita_judge_model="j",
              vita_base_url="http://127.0.0.1:9/v1", vita_api_key_env="VITA_TEST_KEY", vita_memory="full_context")
    # With our own wording (the tests' $VITA_OFFICIAL_SOURCE=none) that is the one reason left.
    assert comparability(b.config) == [OWN_WORDING]
    summary = b.profile_summary()
    assert summary["comparable_with_leaderboard"] is False and summary["official_source"] is None
    assert summary["switches"]["judge-records"] is False
    assert b.header_lines()[0].startswith("vitabench profile: official;")
    with_records = bench(tmp_path, vita_profile="official", vita_model="m", vita_user_model="u", vita_judge_model="j",
                         vita_base_url="http://127.0.0.1:9/v1", vita_api_key_env="VITA_TEST_KEY",
                         vita_deviation="judge-records=on")
    assert comparability(with_records.config) == [OWN_WORDING, "--vita-deviation judge-records=on"]


def test_the_profile_fills_each_switch_left_unset_by_ini_key():
    values = read_settings({"vita_deviation": "rag=default", "vita_profile": "official"}.get)
    assert values["rag_style"] == "default" and values["max_steps"] == 300 and values["profile"] == "official"


def test_every_deviation_is_a_setting_that_declares_its_official_value():
    """One place says a switch's default and official value: the setting; the deviation only explains it."""
    profiled = {s.name for s in specs() if s.meta.official is not None}
    # every deviation, and the run's shape the official profile also sets: the official seed and source
    assert profiled == {dev.field for dev in DEVIATIONS} | {"seed", "official_source"}


@pytest.mark.parametrize("text, expected", [
    ('{"reasoning_effort": "high", "extra_body": {"enable_thinking": true}}',
     {"reasoning_effort": "high", "extra_body": {"enable_thinking": True}}),
    ("temperature=0.6, top_p=0.95,max_completion_tokens=8192",
     {"temperature": 0.6, "top_p": 0.95, "max_completion_tokens": 8192}),
    ("extra_body.enable_thinking=false,extra_body.top_k=20,reasoning_effort=low",
     {"extra_body": {"enable_thinking": False, "top_k": 20}, "reasoning_effort": "low"}),
    ('stop=["a","b"],note=hello world', {"stop": ["a", "b"], "note": "hello world"}),
    ("", {}),
    (None, {}),
])
def test_model_args_json_or_pairs(text, expected):
    assert parse_model_args(text) == expected


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", "expected key=value"),
    ('{"a": 1', "not valid JSON"),
    ("temperature", "expected key=value"),
    ("=3", "expected key=value"),
    ("model=gpt-5", "may not set model"),
    ('{"messages": []}', "may not set messages"),
    ("a=1,a.b=2", "both a value and a group"),
])
def test_model_args_bad_input(text, message):
    with pytest.raises(ValueError, match=message):
        parse_model_args(text)


def test_model_args_reach_the_agent_and_the_report_config(tmp_path, monkeypatch):
    monkeypatch.setenv("VITA_TEST_KEY", "k")
    b = bench(tmp_path, vita_model="m", vita_base_url="http://127.0.0.1:9/v1", vita_api_key_env="VITA_TEST_KEY",
              vita_model_args="reasoning_effort=high")
    assert b.agent().params == {"reasoning_effort": "high"}
    assert b.config.manifest()["model_args"] == {"reasoning_effort": "high"}
    assert any("reasoning_effort" in line for line in b.header_lines(verbose=True))


def test_the_deviation_table_and_help_name_every_switch():
    # The official profile's page asks for the table, generated from DEVIATIONS at every build.
    from _docs import options_hook, page

    from pytest_vitabench.options.settings import specs

    assert options_hook().DEVIATIONS_MARKER in page("official-profile.md").split("## Deviations")[1]
    table = options_hook().deviations_table()
    helps = {spec.option: spec.meta.help for spec in specs()}
    for dev in DEVIATIONS:
        assert f"`{dev.spelling(dev.official)}`" in table and dev.option in helps, dev.option
    assert "--vita-profile" in helps and "--vita-model-args agent" in helps


def test_the_report_says_which_domains_get_the_official_tool_text(tmp_path):
    checkout = str(make_checkout(tmp_path / "harness"))
    official = bench(tmp_path, vita_profile="official", vita_official_source=checkout)
    assert official.profile_summary()["official_tool_results_domains"] == ["delivery", "instore", "ota"]
    assert bench(tmp_path).profile_summary()["official_tool_results_domains"] == []
    # our own wording (--vita-official-source none): the official messages cannot be read, the answers are ours
    assert bench(tmp_path, vita_profile="official").profile_summary()["official_tool_results_domains"] == []


def test_official_tool_results_by_name_without_the_source_is_refused_naming_the_option(tmp_path):
    with pytest.raises(ValueError, match="--vita-deviation tool-results=official reads the official tools' messages .*"
                                         "--vita-official-source DIR"):
        bench(tmp_path, vita_deviation="tool-results=official", vita_official_source="none")
