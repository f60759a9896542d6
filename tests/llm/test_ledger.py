"""Prices (inline, TOML, JSON) and the usage ledger: totals, cost per role, unpriced models, worker merge."""

from __future__ import annotations

import json

import pytest

from pytest_vitabench.llm import Ledger, LLMClient, LLMSettings, ModelPrice, load_prices, price_for
from pytest_vitabench.messages import Usage

KEY_ENV = "VITA_LLM_TEST_KEY"
MSGS = [{"role": "user", "content": "hi"}]


def test_inline_prices():
    prices = load_prices("gpt-4.1=2/8, openai/gpt-4.1-mini = 0.4/1.6")
    assert prices == {"gpt-4.1": ModelPrice(prompt_per_1m=2, completion_per_1m=8),
                      "openai/gpt-4.1-mini": ModelPrice(prompt_per_1m=0.4, completion_per_1m=1.6)}
    assert load_prices(None) == {} and load_prices("  ") == {}


@pytest.mark.parametrize("spec", ["gpt-4.1", "gpt-4.1=2", "=2/8", "gpt-4.1=two/8"])
def test_bad_inline_prices_name_the_entry(spec):
    with pytest.raises(ValueError, match="bad price entry"):
        load_prices(spec)


def test_toml_and_json_files(tmp_path):
    (tmp_path / "prices.toml").write_text('[models."gpt-4.1"]\nprompt_per_1m = 2.0\ncompletion_per_1m = 8.0\n'
                                          '[models.judge-x]\nprompt_price = 1\ncompletion_price = 3\n')
    (tmp_path / "prices.json").write_text(json.dumps(
        {"m": [0.5, 1.5], "official": {"cost_1m_token_dollar": {"prompt_price": 2, "completion_price": 4}}}))
    toml = load_prices("prices.toml", base_dir=tmp_path)
    assert toml["gpt-4.1"].completion_per_1m == 8.0 and toml["judge-x"].prompt_per_1m == 1
    js = load_prices(tmp_path / "prices.json")
    assert js["m"] == ModelPrice(prompt_per_1m=0.5, completion_per_1m=1.5) and js["official"].completion_per_1m == 4
    with pytest.raises(ValueError, match="not found"):
        load_prices("missing.toml", base_dir=tmp_path)


def test_dated_snapshots_fall_back_to_the_base_name_and_nothing_else():
    prices = {"gpt-4.1": ModelPrice(prompt_per_1m=2, completion_per_1m=8)}
    assert price_for(prices, "gpt-4.1-2025-04-14") is prices["gpt-4.1"]
    assert price_for(prices, "gpt-4.1") is prices["gpt-4.1"]
    assert price_for(prices, "gpt-4.1-mini") is None and price_for(prices, "other") is None


def test_usage_sums_cached_requests():
    total = Usage(prompt_tokens=1, requests=1) + Usage(prompt_tokens=2, cached_requests=1)
    assert (total.prompt_tokens, total.requests, total.cached_requests) == (3, 1, 1)


def test_the_ledger_prices_each_role_and_flags_unpriced_models(stub):
    ledger = Ledger()
    prices = load_prices("agent-m=2/8,judge-m=1/4")
    client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env=KEY_ENV, prices=prices, cache="off"), ledger)
    client.complete("agent", model="agent-m", messages=MSGS)
    client.complete("agent", model="agent-m", messages=MSGS)
    client.complete("judge", model="judge-m", messages=MSGS)
    client.complete("user", model="mystery-m", messages=MSGS)
    by_role = ledger.by_role()
    assert list(by_role) == ["agent", "user", "judge"]
    assert by_role["agent"].cost == pytest.approx(2 * (11 * 2 + 7 * 8) / 1e6)
    assert by_role["judge"].cost == pytest.approx((11 * 1 + 7 * 4) / 1e6)
    assert by_role["user"].cost == 0.0 and ledger.unpriced == {"mystery-m"}
    total = ledger.total()
    assert (total.requests, total.prompt_tokens, total.completion_tokens, total.reasoning_tokens) == (4, 44, 28, 8)
    assert total.cost == pytest.approx(by_role["agent"].cost + by_role["judge"].cost)
    lines = ledger.table_lines()
    assert lines[0].split()[:3] == ["role", "requests", "cached"] and lines[-2].startswith("total")
    assert "mystery-m" in lines[-1]


def test_snapshot_since_gives_per_item_usage():
    ledger = Ledger()
    ledger.record("agent", Usage(prompt_tokens=5, requests=1, cost=0.5))
    mark = ledger.snapshot()
    ledger.record("agent", Usage(prompt_tokens=3, requests=1, cost=0.25))
    ledger.record("memory", Usage(prompt_tokens=1, cached_requests=1))
    delta = ledger.since(mark)
    assert delta == {"agent": Usage(prompt_tokens=3, requests=1, cost=0.25),
                     "memory": Usage(prompt_tokens=1, cached_requests=1)}


def test_worker_ledgers_merge_on_the_controller():
    workers = [Ledger(), Ledger()]
    workers[0].record("judge", Usage(prompt_tokens=10, completion_tokens=2, requests=1, cost=0.1))
    workers[0].note_retry("judge")
    workers[1].record("judge", Usage(prompt_tokens=5, requests=1, cost=0.05), model="x", priced=False)
    workers[1].note_error("agent")
    controller = Ledger()
    for worker in workers:
        controller.merge(json.loads(json.dumps(worker.to_dict())))  # as shipped through workeroutput
    data = controller.to_dict()
    assert data["roles"]["judge"]["prompt_tokens"] == 15 and data["roles"]["judge"]["retries"] == 1
    assert data["roles"]["agent"]["errors"] == 1 and data["unpriced_models"] == ["x"]
    assert data["total"]["cost"] == pytest.approx(0.15)
