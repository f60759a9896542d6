"""Building a run from option values: every setting is checked before any item runs."""

from __future__ import annotations

import pytest

from pytest_vitabench.options.settings import options_for
from pytest_vitabench.run.wiring import Benchmark


def _build(tmp_path, **options):
    return Benchmark(options_for(**options), rootdir=tmp_path, state_dir=str(tmp_path / "s"))


def test_offline_defaults_need_no_client(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    bench = _build(tmp_path)
    assert not bench.needs_llm and bench._llm_client is None
    assert bench.config.model == "reference" and bench.config.memory == ["full_context"]
    assert type(bench.agent()).__name__ == "ReferenceAgent"


@pytest.mark.parametrize("options, message", [
    ({"model": "gpt-4.1"}, "no API key"),
    ({"judge_model": "gpt-4.1"}, "no API key"),
    ({"memory": "agentic"}, "--vita-memory-model"),
    ({"trials": "0"}, "--vita-trials must be a whole number >= 1, got 0"),
    ({"judge_mode": "both"}, "window"),
    ({"rag_threshold": "high"}, "rag-threshold"),
    ({"judge_votes": "3"}, "rules"),
])
def test_bad_settings_fail_before_any_item(tmp_path, monkeypatch, options, message):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match=message):
        _build(tmp_path, **options)


def test_an_llm_agent_shares_one_client_with_the_memory(tmp_path):
    bench = _build(tmp_path, model="m", base_url="http://127.0.0.1:9/v1", memory="agentic,none")
    assert bench.config.memory_model == "m"  # the agent's model, as in the official harness
    assert bench.memories.options.llm_client is bench.llm_client() is bench.agent().client
