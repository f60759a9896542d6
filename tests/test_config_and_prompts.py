"""Run configuration (seeds, manifest) and the agent's system prompt."""

from __future__ import annotations

import hashlib

import pytest
from pydantic import ValidationError

from pytest_vitabench.agents.prompts import agent_system_prompt, time_with_weekday
from pytest_vitabench.options.config import RunConfig


def test_trial_seeds_are_stable_sha256_derivations():
    config = RunConfig(seed=7)
    expected = int(hashlib.sha256(b"vitabench:7:2").hexdigest()[:8], 16)
    assert config.trial_seed(2) == expected
    assert len({config.trial_seed(t) for t in range(4)}) == 4
    assert RunConfig(seed=8).trial_seed(2) != expected


def test_manifest_names_the_key_variable_not_the_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-value-000000000000")
    manifest = RunConfig().manifest()
    assert manifest["api_key_env"] == "OPENAI_API_KEY" and "sk-very-secret" not in str(manifest)
    assert manifest["plugin_version"]


def test_manifest_strips_credentials_from_the_endpoint():
    manifest = RunConfig(base_url="https://bob:sk-in-url-123@proxy.example:8443/v1?key=abc").manifest()
    assert manifest["base_url"] == "https://proxy.example:8443/v1"


@pytest.mark.parametrize("field, value", [("trials", 0), ("max_steps", 1), ("language", "de")])
def test_invalid_settings_are_rejected(field, value):
    with pytest.raises(ValidationError):
        RunConfig(**{field: value})


def test_time_with_weekday():
    assert time_with_weekday("2026-03-02 11:35:00") == "2026-03-02 11:35:00 Monday"
    assert time_with_weekday("2026-03-02 11:35:00", "zh") == "2026-03-02 11:35:00 星期一"
    assert time_with_weekday("soon") == "soon"


def test_system_prompt_sections():
    text = agent_system_prompt(time="T0", profile={"user_id": "U1", "family": ["wife", "son"]},
                               memory="- [2025-01-01] [order] latte", proactive=False)
    assert "The current time is T0." in text
    assert "- user_id: U1" in text and "- family: wife, son" in text
    assert text.rstrip().endswith("- [2025-01-01] [order] latte")
    assert "###STOP###" in text and "genuine need" not in text
    proactive = agent_system_prompt(time="T0", profile={}, memory="", proactive=True)
    assert "genuine need" in proactive and "(nothing remembered)" in proactive and "account profile" not in proactive
    chinese = agent_system_prompt(time="T0", profile={"user_id": "U1"}, memory="", proactive=False, language="zh")
    assert "用户偏好记忆" in chinese and "当前时间：T0" in chinese
