"""Prompt tokens served from the provider's cache: read from every common spelling, priced at the cached rate."""

from __future__ import annotations

import json

import pytest

from pytest_vitabench.llm import Ledger, LLMClient, LLMSettings, load_prices
from pytest_vitabench.llm.prices import ModelPrice
from pytest_vitabench.messages import Usage

KEY_ENV = "VITA_CACHE_USAGE_KEY"
MSGS = [{"role": "user", "content": "hi"}]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-cache-usage-0123456789")


def _complete(stub, usage, prices=None):
    stub.replies.append({"content": "ok", "usage": usage})
    client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env=KEY_ENV, cache="off", max_retries=0,
                                   prices=prices or {}))
    with client:
        return client.complete("agent", model="m", messages=MSGS).usage, client.ledger


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": 2000, "completion_tokens": 10, "prompt_tokens_details": {"cached_tokens": 1536}},  # OpenAI, vLLM
    {"prompt_tokens": 2000, "completion_tokens": 10, "prompt_cache_hit_tokens": 1536,
     "prompt_cache_miss_tokens": 464},  # DeepSeek
    {"prompt_tokens": 2000, "completion_tokens": 10, "cache_read_input_tokens": 1536},  # Anthropic-compatible
    {"prompt_tokens": 2000, "completion_tokens": 10, "cached_tokens": 1536},  # Moonshot
    # the Anthropic shape: input_tokens leaves the cache reads and writes out
    {"input_tokens": 400, "cache_read_input_tokens": 1536, "cache_creation_input_tokens": 64, "output_tokens": 10},
], ids=["openai", "deepseek", "anthropic-compatible", "moonshot", "anthropic-shape"])
def test_each_spelling_of_cached_tokens_is_read_and_priced_at_the_cached_rate(stub, usage):
    price = ModelPrice(prompt_per_1m=2.0, cached_per_1m=0.5, completion_per_1m=8.0)
    got, ledger = _complete(stub, usage, {"m": price})
    assert (got.prompt_tokens, got.cached_prompt_tokens, got.completion_tokens) == (2000, 1536, 10)
    assert got.cost == pytest.approx((464 * 2.0 + 1536 * 0.5 + 10 * 8.0) / 1e6)
    assert ledger.total().cached_prompt_tokens == 1536


@pytest.mark.parametrize("cached, expected", [
    ("1536", 0), (-5, 0), (None, 0), (True, 0), (5000, 2000), ([1], 0),
], ids=["text", "negative", "null", "bool", "more-than-the-prompt", "list"])
def test_a_nonsense_cached_count_never_breaks_the_call_nor_makes_a_prompt_cost_less_than_nothing(
        stub, cached, expected):
    got, _ = _complete(stub, {"prompt_tokens": 2000, "completion_tokens": 1,
                              "prompt_tokens_details": {"cached_tokens": cached}},
                       {"m": ModelPrice(prompt_per_1m=2.0, cached_per_1m=0.5, completion_per_1m=8.0)})
    assert got.prompt_tokens == 2000 and got.cached_prompt_tokens == expected and got.cost >= 0


def test_no_cached_rate_bills_cached_tokens_at_the_prompt_rate(stub):
    got, _ = _complete(stub, {"prompt_tokens": 2000, "completion_tokens": 0,
                              "prompt_tokens_details": {"cached_tokens": 1024}}, load_prices("m=2/8"))
    assert got.cached_prompt_tokens == 1024 and got.cost == pytest.approx(2000 * 2.0 / 1e6)


def test_a_provider_without_any_cached_field_counts_zero(stub):
    got, _ = _complete(stub, {"prompt_tokens": 11, "completion_tokens": 7})
    assert got.cached_prompt_tokens == 0


def test_inline_prices_take_the_cached_rate_in_the_middle_and_keep_the_two_rate_form():
    prices = load_prices("gpt-4.1=2/0.5/8, openai/gpt-4.1-mini=0.4/1.6")
    assert (prices["gpt-4.1"].prompt_per_1m, prices["gpt-4.1"].cached_per_1m,
            prices["gpt-4.1"].completion_per_1m) == (2.0, 0.5, 8.0)
    mini = prices["openai/gpt-4.1-mini"]
    assert mini.cached_per_1m is None and mini.cached_rate == 0.4 and mini.completion_per_1m == 1.6


def test_prices_files_accept_the_cached_rate(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps({"models": {"a": {"prompt_per_1m": 2, "cached_per_1m": 0.5,
                                                                  "completion_per_1m": 8}, "b": [1, 0.25, 4]}}))
    (tmp_path / "p.toml").write_text('[models.c]\nprompt_price = 3\ncached_prompt_price = 0.3\n'
                                     'completion_price = 15\n')
    from_json = load_prices("p.json", base_dir=tmp_path)
    assert from_json["a"].cached_per_1m == 0.5 and from_json["b"].cached_per_1m == 0.25
    assert load_prices("p.toml", base_dir=tmp_path)["c"].cached_rate == 0.3


@pytest.mark.parametrize("spec, message", [
    ("m=1/2/3/4", "expected MODEL=PROMPT/COMPLETION or MODEL=PROMPT/CACHED/COMPLETION"),
    ("m=2", "expected MODEL=PROMPT/COMPLETION"),
    ("m=2/half/8", "'m=2/half/8': prices must be numbers"),
    ("m=2/-0.5/8", "'m=2/-0.5/8': prices must not be negative"),
])
def test_bad_inline_prices_name_the_entry(spec, message):
    with pytest.raises(ValueError, match=message):
        load_prices(f"ok=1/2, {spec}")


def test_a_bad_cached_rate_in_a_file_names_the_field(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps({"m": {"prompt_per_1m": 2, "cached_per_1m": -1,
                                                       "completion_per_1m": 8}}))
    with pytest.raises(ValueError, match="cached_per_1m"):
        load_prices("p.json", base_dir=tmp_path)
    (tmp_path / "q.json").write_text(json.dumps({"m": [1, 2, 3, 4]}))
    with pytest.raises(ValueError, match=r"\[prompt, cached, completion\]"):
        load_prices("q.json", base_dir=tmp_path)


def test_the_ledger_table_shows_cached_prompt_tokens_and_their_share_and_workers_merge_them():
    workers = [Ledger(), Ledger()]
    workers[0].record("agent", Usage(prompt_tokens=3000, cached_prompt_tokens=2304, requests=2))
    workers[1].record("agent", Usage(prompt_tokens=1000, cached_prompt_tokens=0, requests=1))
    workers[1].record("judge", Usage(prompt_tokens=500, requests=1))
    controller = Ledger()
    for worker in workers:
        controller.merge(json.loads(json.dumps(worker.to_dict())))
    assert controller.to_dict()["roles"]["agent"]["cached_prompt_tokens"] == 2304
    lines = controller.table_lines()
    header = lines[0]
    assert "prompt cached" in header
    column = header.index("prompt cached") + len("prompt cached")  # numbers are right-aligned under it
    agent, judge, total = lines[1], lines[2], lines[3]
    assert agent[:column].endswith("2,304 (58%)") and judge[:column].endswith("0 (0%)")
    assert total[:column].endswith("2,304 (51%)")
