"""LLMClient over real HTTP against the stub: retries, Retry-After, timeouts, refusals, parsing, secrecy."""

from __future__ import annotations

import logging
import time
import traceback

import pytest
from _stub_llm import Reply, StubLLM, embedding, tool_call

from pytest_vitabench.llm import LLMClient, LLMError, LLMSettings, MissingAPIKey
from pytest_vitabench.llm.ratelimit import Limiter

SECRET = "sk-test-SECRET-0123456789abcdef"
KEY_ENV = "VITA_LLM_TEST_KEY"
MSGS = [{"role": "user", "content": "hi"}]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def make(stub: StubLLM, **overrides) -> LLMClient:
    settings = dict(base_url=stub.base_url, api_key_env=KEY_ENV, backoff_base_s=0.01, backoff_max_s=0.02,
                    max_retries=3, cache="off")
    settings.update(overrides)
    return LLMClient(LLMSettings(**settings))


def test_message_tool_calls_usage_and_request(stub):
    stub.replies.append({"content": "Let me check.", "tool_calls": [
        tool_call("c1", "weather", {"city": "Kunming"}), tool_call("c2", "weather", '{"city": ')]})
    tools = [{"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}]
    result = make(stub).complete("agent", model="m1", messages=MSGS, tools=tools, seed=7, temperature=0.0)
    assert result.text == "Let me check." and not result.cached and result.raw_finish_reason == "tool_calls"
    # Malformed tool-call JSON reaches the caller untouched, as a string.
    assert [c["function"]["arguments"] for c in result.tool_calls] == ['{"city": "Kunming"}', '{"city": ']
    assert result.tool_calls[0] == {"id": "c1", "type": "function",
                                    "function": {"name": "weather", "arguments": '{"city": "Kunming"}'}}
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.reasoning_tokens,
            result.usage.requests) == (11, 7, 2, 1)
    body = stub.requests[0]
    assert body["seed"] == 7 and body["tool_choice"] == "auto" and body["tools"] == tools
    assert {k.lower(): v for k, v in stub.headers[0].items()}["authorization"] == f"Bearer {SECRET}"


def test_reasoning_parameters_pass_through_and_none_is_omitted(stub):
    make(stub).complete("judge", model="o-mini", messages=MSGS, seed=3, send_seed=False,
                        max_completion_tokens=64, reasoning_effort="low", top_p=0.5, stop=["END"],
                        extra_body={"thinking": {"type": "enabled"}}, temperature=None)
    body = stub.requests[0]
    assert body["max_completion_tokens"] == 64 and body["reasoning_effort"] == "low" and body["top_p"] == 0.5
    assert body["stop"] == ["END"] and body["thinking"] == {"type": "enabled"}
    assert "temperature" not in body and "seed" not in body and "tools" not in body


def test_truncated_answer_is_surfaced(stub):
    stub.replies.append({"content": "The answer is", "finish_reason": "length"})
    result = make(stub).complete("user", model="m", messages=MSGS)
    assert result.truncated and result.raw_finish_reason == "length" and result.text == "The answer is"


@pytest.mark.parametrize("headers, wait", [({"retry-after-ms": "200"}, 0.2), ({"Retry-After": "0.15"}, 0.15)])
def test_429_waits_as_long_as_retry_after_says(stub, headers, wait, caplog):
    stub.replies += [(429, {"error": {"message": "slow down"}}, headers), {"content": "ok"}]
    client = make(stub, backoff_base_s=5.0)  # a computed backoff would take seconds: Retry-After must win
    with caplog.at_level(logging.INFO, logger="pytest_vitabench.llm"):
        assert client.complete("agent", model="m", messages=MSGS).text == "ok"
    # The wait the client chose (from its log line, not the clock) and, from below, the one it kept.
    assert f"retry 1/3 in {wait:.2f} s (Retry-After)" in caplog.text
    assert stub.times[1] - stub.times[0] >= wait
    assert len(stub.requests) == 2 and client.ledger.retries("agent") == 1


def test_500_then_success(stub):
    stub.replies += [(500, {"error": {"message": "boom"}}), (503, {}), {"content": "fine"}]
    client = make(stub)
    result = client.complete("judge", model="m", messages=MSGS)
    assert result.text == "fine" and len(stub.requests) == 3
    assert client.ledger.retries("judge") == 2 and client.ledger.by_role()["judge"].requests == 1


def test_slow_reply_past_the_timeout_is_retried(stub):
    stub.replies += [Reply(message={"content": "late"}, delay=1.0), {"content": "on time"}]
    client = make(stub, timeout_s=0.1)
    # "on time", not "late": it gave up on the slow reply instead of waiting the full second for it
    assert client.complete("agent", model="m", messages=MSGS).text == "on time"
    assert len(stub.requests) == 2 and client.ledger.retries("agent") == 1


def test_timeouts_until_the_last_attempt_raise_llm_error(stub):
    stub.replies += [Reply(message={"content": "late"}, delay=0.3)] * 2
    client = make(stub, timeout_s=0.1, max_retries=1)
    with pytest.raises(LLMError) as info:
        client.complete("user", model="m", messages=MSGS)
    err = info.value
    assert (err.reason, err.status, err.attempts, err.retryable) == ("timeout", None, 2, True)
    assert "127.0.0.1" in str(err) and "timed out" in str(err) and "2 attempt(s)" in str(err)
    assert client.ledger.errors("user") == 1


def test_retries_run_out_and_the_message_names_host_status_and_attempts(stub):
    stub.replies += [(503, {"error": {"message": "overloaded"}})] * 3
    with pytest.raises(LLMError) as info:
        make(stub, max_retries=2).complete("agent", model="m", messages=MSGS)
    text = str(info.value)
    host = stub.base_url.split("//")[1].split("/")[0]
    assert f"to {host}" in text and "HTTP 503" in text and "3 attempt(s)" in text and "overloaded" in text
    assert info.value.status == 503 and len(stub.requests) == 3


@pytest.mark.parametrize("status", [400, 404, 422])
def test_client_errors_are_not_retried(stub, status):
    stub.replies.append((status, {"error": {"message": "context too long"}}))
    with pytest.raises(LLMError, match=rf"HTTP {status} \(not retried\): context too long") as info:
        make(stub).complete("agent", model="m", messages=MSGS)
    assert info.value.attempts == 1 and not info.value.retryable and len(stub.requests) == 1


def test_connection_refused_is_retried_then_reported():
    client = LLMClient(LLMSettings(base_url="http://127.0.0.1:9/v1", api_key_env=KEY_ENV, max_retries=1,
                                   backoff_base_s=0.01, timeout_s=2))
    with pytest.raises(LLMError, match="connection failed") as info:
        client.complete("agent", model="m", messages=MSGS)
    assert info.value.attempts == 2 and client.ledger.retries("agent") == 1


def test_no_concurrency_slot_in_time_is_an_error_without_retries(stub, tmp_path):
    client = make(stub, max_concurrency=1, max_wait_s=0.1, state_dir=tmp_path)
    other = Limiter(tmp_path, max_concurrency=1)
    with other.concurrency_slot():  # another worker holds the only slot
        with pytest.raises(LLMError, match="no rate-limit/concurrency slot") as info:
            client.complete("agent", model="m", messages=MSGS)
    assert info.value.reason == "limiter" and info.value.attempts == 1 and stub.requests == []


def test_embeddings_share_the_path(stub, tmp_path):
    client = make(stub, cache="judge", cache_dir=tmp_path)
    texts = ["a", "b", "c"]
    assert client.embed(model="emb", texts=texts) == [embedding(t) for t in texts]
    assert stub.requests[0]["encoding_format"] == "float" and stub.paths[0].endswith("/embeddings")
    assert client.embed(model="emb", texts=texts) == [embedding(t) for t in texts]  # cached by default
    assert len(stub.requests) == 1
    usage = client.ledger.by_role()["embeddings"]
    assert (usage.prompt_tokens, usage.requests, usage.cached_requests) == (18, 1, 1)
    stub.embedding_replies.append((500, {}))
    assert client.embed(model="emb", texts=["d"]) == [embedding("d")]  # retried like chat


def test_the_key_appears_in_no_repr_message_traceback_or_log(stub, caplog):
    caplog.set_level(logging.DEBUG)
    # A proxy that echoes the key back in its error body must not get it into our message either.
    stub.replies += [(429, {"error": {"message": f"rate limited for key {SECRET}"}}),
                     (401, {"error": {"message": f"invalid key {SECRET}"}})]
    client = make(stub)
    with pytest.raises(LLMError) as info:
        client.complete("judge", model="m", messages=MSGS)
    err = info.value
    assert err.status == 401 and "***" in str(err) and f"${KEY_ENV}" in str(err)
    assert err.__cause__ is None and err.__suppress_context__
    rendered = [repr(client), repr(client.settings), str(err), repr(err), "".join(traceback.format_exception(err)),
                caplog.text, repr(client.limits.limiter), repr(client.ledger.to_dict())]
    for text in rendered:
        assert SECRET not in text


def test_missing_key_for_the_default_endpoint(monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(MissingAPIKey, match=rf"\${KEY_ENV}"):
        LLMClient(LLMSettings(api_key_env=KEY_ENV))


def test_waiting_for_a_rate_slot_does_not_count_against_the_timeout(stub, tmp_path):
    client = make(stub, rpm=1, rpm_window_s=0.25, timeout_s=0.1, max_retries=0, state_dir=tmp_path)
    before_first = time.time()
    client.complete("agent", model="m", messages=MSGS)
    assert client.complete("agent", model="m", messages=MSGS).text  # waited ~0.25 s for the slot, no timeout
    # The first slot was taken after before_first, so the second cannot arrive sooner than a window later.
    # (Measured from the first's arrival instead, a first request slowed on its way under load made the
    # gap look shorter than the window.)
    assert stub.times[1] - before_first >= 0.25


def test_no_rate_slot_in_time_is_an_error_without_retries(stub, tmp_path):
    client = make(stub, rpm=1, rpm_window_s=30, max_wait_s=0.05, state_dir=tmp_path)
    client.complete("agent", model="m", messages=MSGS)
    with pytest.raises(LLMError, match="no rate-limit/concurrency slot") as info:
        client.complete("agent", model="m", messages=MSGS)
    assert info.value.reason == "limiter" and info.value.attempts == 1 and len(stub.requests) == 1


def test_without_the_cache_a_request_is_hashed_only_when_a_retry_needs_its_jitter(stub, tmp_path, monkeypatch,
                                                                                   caplog):
    from pytest_vitabench.llm import cache as cache_module
    from pytest_vitabench.llm import client as client_module

    hashed: list[str] = []

    def counting_key(**kwargs):
        hashed.append(kwargs["role"])
        return cache_module.cache_key(**kwargs)

    monkeypatch.setattr(client_module, "cache_key", counting_key)
    stub.replies += [{"content": "first"}]
    assert make(stub).complete("agent", model="m", messages=MSGS).text == "first"
    assert hashed == []  # the cache is off and nothing was retried: no hash of the request

    # A retried request waits the same jittered time with the cache off (key made for the retry) and on.
    waits = []
    for options in ({}, {"cache": "all", "cache_dir": tmp_path / "cache"}):
        stub.replies += [(500, {"error": {"message": "boom"}}), {"content": "ok"}]
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="pytest_vitabench.llm"):
            assert make(stub, backoff_base_s=0.05, backoff_max_s=0.1, **options).complete(
                "agent", model="m", messages=MSGS, seed=3).text == "ok"
        waits.append([r.getMessage().rsplit(" in ", 1)[1] for r in caplog.records if "retry 1/3" in r.getMessage()])
    assert hashed == ["agent", "agent"] and waits[0] == waits[1] and len(waits[0]) == 1


def test_warm_up_builds_the_client_the_first_call_then_uses(stub):
    client = make(stub)
    client.warm_up_in_background().join(timeout=30)
    built = client.endpoints[0].openai
    assert built is not None and stub.requests == []  # built, nothing sent
    client.complete("agent", model="m", messages=[{"role": "user", "content": "hi"}])
    assert client.endpoints[0].openai is built and len(stub.requests) == 1


def test_a_failed_warm_up_is_left_for_the_first_call(stub, monkeypatch):
    client = make(stub)
    failures: list[object] = []
    monkeypatch.setattr("threading.excepthook", failures.append)

    def broken() -> None:
        raise RuntimeError("no openai package")

    monkeypatch.setattr(client, "api", broken)
    client.warm_up_in_background().join(timeout=30)
    assert failures == [] and client.endpoints[0].openai is None


def test_embeddings_one_per_request_send_each_text_alone_in_the_sdk_default_encoding(stub):
    texts = ["a b", "c", "a b"]
    assert make(stub).embed(model="emb", texts=texts, one_per_request=True) == [embedding(t) for t in texts]
    # the official rag's request shape: a plain string, the SDK's base64 default (decoded by the SDK)
    assert sorted(r["input"] for r in stub.requests) == sorted(texts)  # sent in parallel, answered in order
    assert {r.get("encoding_format") for r in stub.requests} == {"base64"}


def test_several_base_urls_take_turns_and_a_dead_one_is_drained_for_embeddings_too():
    from _stub_llm import StubLLM

    first, second, dead = StubLLM(), StubLLM(), StubLLM()
    dead_url = dead.base_url
    dead.close()
    try:
        client = LLMClient(LLMSettings(base_url=f"{first.base_url},{dead_url},{second.base_url}",
                                       api_key_env=KEY_ENV, cache="off", circuit_breaker=2, max_retries=3,
                                       backoff_base_s=0.01, backoff_max_s=0.02))
        for _ in range(6):
            assert len(client.embed(model="e", texts=["a"])) == 1
        assert len(first.requests) + len(second.requests) == 6 and len(first.requests) >= 2
        assert len(second.requests) >= 2  # one at a time, they alternate
        assert client.endpoints[1].breaker.reason() is not None  # drained after 2 failed attempts
        assert client.ledger.errors("embeddings") == 0
        assert client.ledger.endpoints()[dead_url] == {"requests": 0, "failed_attempts": 2}
    finally:
        first.close()
        second.close()
