"""The caching stub provider itself: the measurements of prompt caching are only as good as it is."""

from __future__ import annotations

from _caching_llm import BLOCK, CHARS_PER_TOKEN, PromptCache, caching_stub

from pytest_vitabench.llm import LLMClient, LLMSettings


def _request(text: str) -> dict:
    return {"model": "m", "messages": [{"role": "system", "content": text}]}


def test_hits_are_the_longest_known_prefix_in_whole_blocks_from_1024_tokens_and_expire_after_the_ttl():
    now = [0.0]
    cache = PromptCache(ttl_s=60, clock=lambda: now[0])
    head = "x" * (1_200 * CHARS_PER_TOKEN)
    assert cache.answer(_request(head))[1] == 0  # never seen
    prompt, cached = cache.answer(_request(head + "y" * 4_000))
    assert cached == 1_152 == 1_200 // BLOCK * BLOCK and prompt > 1_200
    assert cache.answer(_request("x" * (900 * CHARS_PER_TOKEN) + "z" * 8_000))[1] == 0  # shared 896 < 1,024
    now[0] = 59.0
    assert cache.answer(_request(head))[1] == 1_152  # used: the lifetime starts again
    now[0] = 59.0 + 61.0
    assert cache.answer(_request(head))[1] == 0  # forgotten


def test_a_prefix_is_known_only_once_its_request_was_answered():
    now = [0.0]
    cache = PromptCache(clock=lambda: now[0])
    text = "a" * (2_000 * CHARS_PER_TOKEN)
    cache.answer(_request(text), answered_in_s=1.0)
    assert cache.answer(_request(text))[1] == 0  # a sibling sent while the first is in flight misses
    now[0] = 1.0
    assert cache.answer(_request(text))[1] == 1_920


def test_the_client_reads_the_stubs_cached_tokens_over_http(monkeypatch):
    monkeypatch.setenv("VITA_CACHING_STUB_KEY", "sk-test-caching-stub-0123456789")
    stub, _ = caching_stub()
    try:
        client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_CACHING_STUB_KEY", cache="off"))
        with client:
            messages = [{"role": "system", "content": "policy " * 2_000}, {"role": "user", "content": "hi"}]
            first = client.complete("user", model="m", messages=messages).usage
            second = client.complete("user", model="m", messages=[*messages, {"role": "assistant", "content": "ok"},
                                                                  {"role": "user", "content": "more"}]).usage
        assert first.cached_prompt_tokens == 0 and second.cached_prompt_tokens >= 3_456
        assert second.cached_prompt_tokens % BLOCK == 0 and second.cached_prompt_tokens <= first.prompt_tokens
    finally:
        stub.close()
