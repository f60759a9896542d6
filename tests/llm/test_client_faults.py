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
