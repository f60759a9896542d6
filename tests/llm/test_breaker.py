"""The circuit breaker over real HTTP: it opens after N consecutive endpoint failures, then fails fast."""

from __future__ import annotations

import pytest
from _stub_llm import StubLLM

from pytest_vitabench.llm import LLMClient, LLMError, LLMSettings

KEY_ENV = "VITA_BREAKER_TEST_KEY"
MSGS = [{"role": "user", "content": "hi"}]
UNAUTHORIZED = (401, {"error": {"message": "Incorrect API key provided"}})


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-breaker-test-0123456789")


def make(stub: StubLLM, **overrides) -> LLMClient:
    settings = dict(base_url=stub.base_url, api_key_env=KEY_ENV, backoff_base_s=0.01, backoff_max_s=0.02,
                    max_retries=1, cache="off", circuit_breaker=3)
    settings.update(overrides)
    return LLMClient(LLMSettings(**settings))


def test_opens_after_n_consecutive_failures_and_then_sends_nothing(stub):
    stub.replies += [UNAUTHORIZED] * 3 + [{"content": "never sent"}]
    client = make(stub)
    for _ in range(3):
        with pytest.raises(LLMError, match="HTTP 401"):
            client.complete("agent", model="m", messages=MSGS)
    assert len(stub.requests) == 3
    with pytest.raises(LLMError) as info:
        client.complete("agent", model="m", messages=MSGS)
    assert len(stub.requests) == 3  # not sent
    error = info.value
    assert error.reason == "circuit_open" and not error.retryable
    assert f"circuit breaker open for {stub.base_url} after 3 consecutive failed calls" in str(error)
    assert "Last failure: agent LLM call to 127.0.0.1" in str(error) and "HTTP 401" in str(error)
    assert client.ledger.to_dict()["roles"]["agent"]["errors"] == 4


def test_a_success_resets_the_count(stub):
    stub.replies += [UNAUTHORIZED, UNAUTHORIZED, {"content": "ok"}, UNAUTHORIZED, UNAUTHORIZED, {"content": "ok"}]
    client = make(stub)
    outcomes = []
    for _ in range(6):
        try:
            outcomes.append(client.complete("agent", model="m", messages=MSGS).text)
        except LLMError:
            outcomes.append("error")
    assert outcomes == ["error", "error", "ok", "error", "error", "ok"]
    assert len(stub.requests) == 6


def test_retries_that_run_out_count_once_per_call(stub):
    stub.replies += [(503, {"error": "busy"})] * 4 + [{"content": "ok"}]
    client = make(stub, circuit_breaker=2)
    for _ in range(2):
        with pytest.raises(LLMError, match="HTTP 503"):
            client.complete("agent", model="m", messages=MSGS)
    assert len(stub.requests) == 4  # two calls x (1 + 1 retry)
    with pytest.raises(LLMError, match="circuit breaker open"):
        client.complete("agent", model="m", messages=MSGS)
    assert len(stub.requests) == 4


def test_requests_rejected_on_their_own_merits_do_not_open_it(stub):
    stub.replies += [(400, {"error": {"message": "context too long"}})] * 4 + [{"content": "ok"}]
    client = make(stub, circuit_breaker=2)
    for _ in range(4):
        with pytest.raises(LLMError, match="HTTP 400"):
            client.complete("agent", model="m", messages=MSGS)
    assert client.complete("agent", model="m", messages=MSGS).text == "ok"


def test_zero_disables_it(stub):
    stub.replies += [UNAUTHORIZED] * 5
    client = make(stub, circuit_breaker=0)
    for _ in range(5):
        with pytest.raises(LLMError, match="HTTP 401"):
            client.complete("agent", model="m", messages=MSGS)
    assert len(stub.requests) == 5


def test_every_process_sharing_the_state_dir_stops(stub, tmp_path):
    stub.replies += [UNAUTHORIZED] * 2 + [{"content": "would be sent without the shared state"}]
    first, second = make(stub, circuit_breaker=2, state_dir=tmp_path), make(stub, circuit_breaker=2, state_dir=tmp_path)
    for _ in range(2):
        with pytest.raises(LLMError):
            first.complete("agent", model="m", messages=MSGS)
    with pytest.raises(LLMError, match="circuit breaker open"):
        second.complete("agent", model="m", messages=MSGS)
    assert len(stub.requests) == 2
    # another run (another state dir) starts closed: a rerun continues once the endpoint is back
    assert make(stub, circuit_breaker=2, state_dir=tmp_path / "next").complete("agent", model="m", messages=MSGS).text


def test_bad_option_values_name_the_option(tmp_path):
    from pytest_vitabench.llm.settings import settings_for_run
    from pytest_vitabench.options.config import RunConfig

    assert settings_for_run(RunConfig.from_options({}), rootdir=tmp_path).circuit_breaker == 5
    off = settings_for_run(RunConfig.from_options({"vita_limits": "circuit-breaker=0"}), rootdir=tmp_path)
    assert off.circuit_breaker == 0
    for bad in ("-1", "many", "2.5"):
        with pytest.raises(ValueError, match="--vita-limits circuit-breaker must be a whole number"):
            RunConfig.from_options({"vita_limits": f"circuit-breaker={bad}"})


def test_another_workers_opening_is_seen_within_the_check_interval(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from pytest_vitabench.llm import endpoints

    clock = [100.0]
    monkeypatch.setattr(endpoints, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    mine = endpoints.CircuitBreaker("http://127.0.0.1:1/v1", threshold=2, state_dir=tmp_path)
    other = endpoints.CircuitBreaker("http://127.0.0.1:1/v1", threshold=2, state_dir=tmp_path)
    assert mine.reason() is None
    other.record_failure("HTTP 401")
    other.record_failure("HTTP 401")
    assert other.reason() == "HTTP 401"
    assert mine.reason() is None  # it looked a moment ago
    clock[0] += endpoints.SHARED_CHECK_S
    assert mine.reason() == "HTTP 401"
