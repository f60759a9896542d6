"""Per-role request settings: ``--vita-official-models`` (the official models.yaml) and ``--vita-*-model-args``."""

from __future__ import annotations

import json

import pytest
from _fake_official import make_checkout
from _side_by_side import AGENT, JUDGE, USER, recorded, role_stub
from _suites import tiny_suite

from pytest_vitabench.official.models import load, locate
from pytest_vitabench.run.comparability import NO_MODELS_YAML, comparability
from pytest_vitabench.run.wiring import Benchmark

MODELS_YAML = """\
default:
  base_url: http://127.0.0.1:9/v1
  api_key: ${SOME_UNSET_KEY_VARIABLE}
  temperature: 0.0
  max_input_tokens: 128000
  extra_body: {enable_thinking: false, top_k: 20}
models:
  - name: gpt-4.1
    max_tokens: 8192
    seed: 7
    extra_headers: {Authorization: secret-token}
  - name: o4-mini
    reasoning_effort: medium
    max_completion_tokens: 16384
    temperature: null
    extra_body: {enable_thinking: true}
  - name: judge-m
    max_tokens: 4096
    top_p: ${VITA_TEST_TOP_P}
"""


@pytest.fixture
def models_yaml(tmp_path, monkeypatch):
    monkeypatch.setenv("VITA_TEST_TOP_P", "0.5")
    path = tmp_path / "models.yaml"
    path.write_text(MODELS_YAML)
    return path


def test_each_entry_is_the_default_deep_merged_with_it_as_officially(models_yaml):
    models = load(models_yaml)
    assert models.settings("gpt-4.1", option="--vita-model") == {
        "temperature": 0.0, "max_tokens": 8192, "extra_body": {"enable_thinking": False, "top_k": 20}}
    # null leaves the default's temperature out; a nested mapping merges key by key
    assert models.settings("o4-mini", option="--vita-model") == {
        "max_completion_tokens": 16384, "reasoning_effort": "medium",
        "extra_body": {"enable_thinking": True, "top_k": 20}}
    # a "${VAR}" value is the environment variable, as the official loader expands it
    assert models.settings("judge-m", option="--vita-judge-model")["top_p"] == "0.5"
    # the memory update sets its own budget, as the official rewrite memory drops the entry's
    assert "max_tokens" not in models.settings("gpt-4.1", option="--vita-memory-model", memory=True)


def test_seed_headers_and_endpoint_keys_never_reach_the_settings(models_yaml):
    settings = load(models_yaml).settings("gpt-4.1", option="--vita-model")
    assert not {"seed", "extra_headers", "base_url", "api_key", "max_input_tokens"} & set(settings)
    assert "secret-token" not in json.dumps(settings)


@pytest.mark.parametrize("text, message", [
    ("default: [1, 2\n", "not valid YAML"),
    ("- a\n- b\n", "expected a mapping with 'default' and 'models', got list"),
    ("default: 3\n", "'default' must be a mapping"),
    ("models: {name: x}\n", "'models' must be a list"),
    ("models:\n  - max_tokens: 3\n", r"models\[0\] has no name"),
    ("models:\n  - name: m\n    temperature: ${VITA_TEST_SURELY_UNSET}\n",
     r"m.temperature is \$\{VITA_TEST_SURELY_UNSET\}, an environment variable that is not set"),
])
def test_a_file_that_is_not_a_models_yaml_is_named_with_its_problem(tmp_path, text, message):
    path = tmp_path / "models.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as info:
        load(path)
    assert str(path) in str(info.value)


def test_a_missing_file_and_a_model_without_an_entry_are_named(tmp_path, models_yaml):
    with pytest.raises(ValueError, match="cannot read it"):
        load(tmp_path / "absent.yaml")
    with pytest.raises(ValueError, match=r"--vita-user-model 'gpt-5' has no entry in .*models.yaml \(its models: "
                                         r"default, gpt-4.1, judge-m, o4-mini\)"):
        load(models_yaml).settings("gpt-5", option="--vita-user-model")


def test_auto_reads_the_official_variable_then_the_sources_models_yaml_never_the_example(tmp_path, models_yaml,
                                                                                        monkeypatch):
    package = make_checkout(tmp_path / "harness") / "src" / "vita"
    (package / "models.yaml.example").write_text(MODELS_YAML)
    assert locate("auto", package) is None and locate("none", package) is None and locate(None, package) is None
    (package / "models.yaml").write_text(MODELS_YAML)
    assert locate("auto", package).found_as == "official source"
    monkeypatch.setenv("VITA_MODEL_CONFIG_PATH", str(models_yaml))
    found = locate("auto", package)
    assert found.path == models_yaml and found.found_as == "$VITA_MODEL_CONFIG_PATH"
    assert locate(str(models_yaml), None).found_as == "given"


def _bench(tmp_path, monkeypatch, **options):
    monkeypatch.setenv("VITA_TEST_KEY", "k")
    base = {"vita_model": "gpt-4.1", "vita_user_model": "o4-mini", "vita_judge_model": "judge-m",
            "vita_base_url": "http://127.0.0.1:9/v1", "vita_api_key_env": "VITA_TEST_KEY", "vita_preflight": "off",
            "vita_memory": "agentic"}
    return Benchmark({**base, **options}, rootdir=tmp_path, state_dir=str(tmp_path / "llm"))


def test_every_role_gets_its_entry_and_its_own_args_go_over_it(tmp_path, monkeypatch, models_yaml):
    bench = _bench(tmp_path, monkeypatch, vita_official_models=str(models_yaml),
                   vita_model_args="judge:max_tokens=100,stop=[\"END\"]")
    settings = bench.role_settings
    assert settings["agent"]["max_tokens"] == 8192 and bench.agent().params == settings["agent"]
    # o4-mini's entry has no temperature: the user's default 0 is left out of its requests
    assert bench.user_simulator().params["temperature"] is None
    assert settings["user"]["reasoning_effort"] == "medium"
    assert bench.judge().inner.params["max_tokens"] == 100 and settings["judge"]["stop"] == ["END"]
    assert settings["judge"]["top_p"] == "0.5"
    assert "max_tokens" not in settings["memory"] and settings["memory"]["temperature"] == 0.0
    summary = bench.profile_summary()
    assert summary["official_models"] == {"path": str(models_yaml), "found_as": "given"}
    assert summary["request_settings"] == settings
    lines = bench.header_lines(verbose=True)
    assert f"request settings from {models_yaml} (given)" in lines
    assert any(line.startswith("judge request settings: ") and '"max_tokens": 100' in line for line in lines)


def test_without_a_models_yaml_the_roles_keep_their_defaults(tmp_path, monkeypatch):
    bench = _bench(tmp_path, monkeypatch, vita_model_args="user:max_tokens=64")
    assert bench.official_models is None
    assert bench.role_settings == {"agent": {}, "user": {"max_tokens": 64}, "judge": {}, "memory": {},
                                   "rag_summary": {}}
    assert bench.user_simulator().params == {"temperature": 0.0, "max_tokens": 64}
    assert bench.judge().inner.params == {"temperature": 0.0}


def test_a_role_model_missing_from_the_models_yaml_stops_the_run_naming_it(tmp_path, monkeypatch, models_yaml):
    with pytest.raises(ValueError, match="--vita-judge-model 'other' has no entry"):
        _bench(tmp_path, monkeypatch, vita_official_models=str(models_yaml), vita_judge_model="other")


@pytest.mark.parametrize("option, text, message", [
    ("vita_model_args", "user:{not json", "--vita-model-args user is not valid JSON"),
    ("vita_model_args", "judge:seed=3", "--vita-model-args judge may not set seed"),
    ("vita_model_args", "memory:max_tokens", "--vita-model-args memory: expected key=value"),
    ("vita_official_models", " ", "--vita-official-models must be a models.yaml file, auto or none"),
])
def test_bad_role_settings_name_their_option(tmp_path, monkeypatch, option, text, message):
    with pytest.raises(ValueError, match=message):
        _bench(tmp_path, monkeypatch, **{option: text})


def test_comparable_settings_need_the_models_yaml_and_no_override_of_user_judge_or_memory(tmp_path, monkeypatch,
                                                                                         models_yaml):
    plain = _bench(tmp_path, monkeypatch)
    assert NO_MODELS_YAML in comparability(plain.config, official_wording=True)
    given = _bench(tmp_path, monkeypatch, vita_official_models=str(models_yaml), vita_model_args="max_tokens=5")
    reasons = comparability(given.config, official_wording=True, official_models=True)
    assert not any("request settings" in reason for reason in reasons)  # the agent's are the tested model's
    changed = _bench(tmp_path, monkeypatch, vita_official_models=str(models_yaml), vita_model_args="user:top_p=1")
    assert "--vita-model-args user changes the models.yaml request settings" in comparability(
        changed.config, official_wording=True, official_models=True)


@pytest.mark.slow
def test_each_role_sends_its_settings_over_http(pytester, tmp_path):
    """Through pytest, the real client and a stub on 127.0.0.1: every request carries its role's settings."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    stub = role_stub()
    try:
        models = tmp_path / "models.yaml"
        models.write_text(f"default:\n  base_url: {stub.base_url}\n  api_key: x\n  temperature: 0.0\nmodels:\n"
                          f"  - name: {AGENT}\n    max_tokens: 8192\n  - name: {USER}\n    max_tokens: 2048\n"
                          f"  - name: {JUDGE}\n    max_tokens: 16384\n    temperature: 0.1\n")
        result = pytester.runpytest_subprocess(
            "--vita-model", AGENT, "--vita-user-model", USER, "--vita-judge-model", JUDGE,
            "--vita-base-url", stub.base_url, "--vita-memory", "agentic", "--vita-trials", "1", "-k", "U2",
            "-p", "no:cacheprovider", "--vita-cache", "off", "--vita-official-models", str(models),
            "--vita-model-args", "user:top_p=0.9", "-v")
        assert "request settings from" in result.stdout.str()
        sent = {(r.role, json.dumps({k: r.body.get(k) for k in ("max_tokens", "temperature", "top_p")}))
                for r in recorded(stub)}
    finally:
        stub.close()
    assert sent == {
        ("agent", json.dumps({"max_tokens": 8192, "temperature": 0.0, "top_p": None})),
        ("user", json.dumps({"max_tokens": 2048, "temperature": 0.0, "top_p": 0.9})),
        ("judge", json.dumps({"max_tokens": 16384, "temperature": 0.1, "top_p": None})),
        ("memory", json.dumps({"max_tokens": 4096, "temperature": 0.0, "top_p": None})),
    }
