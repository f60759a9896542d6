"""Settings from raw option values, as plugin.py reads them; errors name the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_vitabench.llm import LLMSettings
from pytest_vitabench.llm.settings import settings_for_run
from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.options.settings import options_for


def settings_from_options(*, rootdir: Path, state_dir: str | None = None, **raw: object) -> LLMSettings:
    """The run's LLM settings from raw option values (strings, as pytest reads them), keyed by field name."""
    options = options_for(**raw)
    return settings_for_run(RunConfig.from_options(options), rootdir=rootdir, state_dir=state_dir)


def test_defaults(tmp_path):
    settings = settings_from_options(base_url=None, api_key_env="K", rootdir=tmp_path)
    assert (settings.rpm, settings.max_concurrency, settings.timeout_s, settings.cache) == (None, None, 120.0, "judge")
    assert settings.cache_dir == tmp_path / ".vitabench" / "cache" and settings.state_dir is None
    assert settings.caches("judge") and settings.caches("memory") and not settings.caches("agent")


def test_values_from_strings(tmp_path):
    (tmp_path / "p.json").write_text('{"m": [1, 2]}')
    settings = settings_from_options(base_url="http://h/v1", api_key_env="K", rootdir=tmp_path, state_dir="/s",
                                     rpm="500", max_concurrency="8", timeout="30", cache="ALL", prices="p.json")
    assert (settings.rpm, settings.max_concurrency, settings.timeout_s, settings.cache) == (500, 8, 30.0, "all")
    assert settings.state_dir == Path("/s") and settings.prices["m"].completion_per_1m == 2
    assert settings.caches("agent")
    assert settings_from_options(base_url=None, api_key_env="K", rootdir=tmp_path, rpm="0").rpm is None


@pytest.mark.parametrize("option, value, message", [
    ("rpm", "fast", "--vita-limits rpm"), ("max_concurrency", "-2", "--vita-limits in-flight"),
    ("timeout", "0", "--vita-limits timeout"), ("cache", "sometimes", "--vita-cache"), ("prices", "m=1", "bad price"),
])
def test_bad_values_name_the_option(tmp_path, option, value, message):
    with pytest.raises(ValueError, match=message):
        settings_from_options(base_url=None, api_key_env="K", rootdir=tmp_path, **{option: value})


def test_settings_are_frozen_and_off_or_no_dir_means_no_cache(tmp_path):
    settings = LLMSettings(cache="off", cache_dir=tmp_path)
    assert not settings.caches("judge") and not LLMSettings(cache="all").caches("judge")
    with pytest.raises(ValueError):
        settings.rpm = 5  # type: ignore[misc]
