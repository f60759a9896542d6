"""200 answers that are not completions (a body that is not JSON, no choices) are retried like a 5xx."""

from __future__ import annotations

import pytest
from _stub_llm import Reply, StubLLM

from pytest_vitabench.llm import LLMClient, LLMError, LLMSettings

KEY_ENV = "VITA_LLM_FAULT_KEY"
MSGS = [{"role": "user", "content": "hi"}]
NO_CHOICES = Reply(body={"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}})
NOT_JSON = Reply(raw=b"<html><body>502 Bad Gateway</body></html>")


def make(stub: StubLLM) -> LLMClient:
    return LLMClient(LLMSettings(base_url=stub.base_url, api_key_env=KEY_ENV, backoff_base_s=0.01,
                                 backoff_max_s=0.02, max_retries=2, cache="off"))


@pytest.mark.parametrize("bad", [NOT_JSON, NO_CHOICES], ids=["not-json", "no-choices"])
def test_a_bad_200_is_retried_and_counted(stub, bad, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "local")
    stub.replies += [bad, {"content": "fine"}]
    client = make(stub)
    assert client.complete("agent", model="m", messages=MSGS).text == "fine"
    assert len(stub.requests) == 2
    assert client.ledger.retries("agent") == 1 and client.ledger.errors("agent") == 0


@pytest.mark.parametrize("bad", [NOT_JSON, NO_CHOICES], ids=["not-json", "no-choices"])
def test_a_bad_200_that_persists_is_an_llm_error(stub, bad, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "local")
    stub.replies += [bad] * 3
    client = make(stub)
    with pytest.raises(LLMError) as caught:
        client.complete("agent", model="m", messages=MSGS)
    assert caught.value.reason == "bad_response" and caught.value.attempts == 3
    assert "malformed response" in str(caught.value)
    assert client.ledger.errors("agent") == 1 and client.ledger.retries("agent") == 2
    assert "errors" in client.ledger.table_lines()[0]


#: FastAPI's answer to a request body it cannot validate, as llama-cpp-python's server sends it: the cause last.
_CAUSES = ("2 validation errors:\n  {'type': 'literal_error', 'loc': ('body', 'messages', 1, "
           "'ChatCompletionRequestSystemMessage', 'role'), 'msg': \"Input should be 'system'\"}" + " x" * 200
           + "\n  {'type': 'string_type', 'loc': ('body', 'messages', 1, 'ChatCompletionRequestAssistantMessage', "
           "'content'), 'msg': 'Input should be a valid string', 'input': None}")
VALIDATION_500 = (500, {"error": {"type": "internal_server_error", "message": _CAUSES}})


def test_a_server_error_that_is_a_validation_error_is_refused_with_its_whole_cause(stub, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "local")
    stub.replies += [VALIDATION_500, VALIDATION_500, VALIDATION_500]
    client = make(stub)
    with pytest.raises(LLMError) as caught:
        client.complete("agent", model="m", messages=MSGS)
    assert len(stub.requests) == 1 and caught.value.attempts == 1 and not caught.value.retryable
    assert "HTTP 500 (not retried)" in str(caught.value)
    assert "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid string'" in str(
        caught.value)
    assert client.ledger.retries("agent") == 0


def test_a_plain_server_error_is_still_retried(stub, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "local")
    stub.replies += [(500, {"error": {"message": "out of memory"}}), {"content": "fine"}]
    assert make(stub).complete("agent", model="m", messages=MSGS).text == "fine"
    assert len(stub.requests) == 2
