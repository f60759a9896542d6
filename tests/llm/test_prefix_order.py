"""Siblings with a long shared prompt prefix follow their leader, so a caching provider serves it from cache."""

from __future__ import annotations

import threading
import time

import pytest
from _caching_llm import caching_stub

from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.llm.prefix_order import MIN_SHARED_CHARS, PrefixOrder

LONG = "the same memory of the user, line after line. " * (MIN_SHARED_CHARS // 40)


def _request(system: str, *turns: str) -> dict:
    return {"model": "m", "messages": [{"role": "system", "content": system},
                                       *({"role": "user", "content": t} for t in turns)]}


def _send_in_thread(order: PrefixOrder, request: dict, log: list, name: str, hold_s: float = 0.0,
                    fail: bool = False) -> threading.Thread:
    def send() -> None:
        try:
            with order.turn(request):
                log.append(("sent", name))
                time.sleep(hold_s)
                if fail:
                    raise ConnectionError("the leader's request failed")
            log.append(("answered", name))
        except ConnectionError:
            log.append(("failed", name))

    thread = threading.Thread(target=send)
    thread.start()
    return thread


def test_a_sibling_is_sent_only_after_its_leader_is_answered():
    order, log = PrefixOrder(), []
    leader = _send_in_thread(order, _request(LONG, "order me a dessert"), log, "t0", hold_s=0.3)
    time.sleep(0.05)
    followers = [_send_in_thread(order, _request(LONG, "order me a dessert"), log, f"t{i}") for i in (1, 2, 3)]
    for thread in [leader, *followers]:
        thread.join(5)
    assert log[:2] == [("sent", "t0"), ("answered", "t0")]
    assert {name for event, name in log[2:] if event == "sent"} == {"t1", "t2", "t3"}


def test_a_conversations_next_request_and_short_or_unrelated_prompts_never_wait():
    order, log = PrefixOrder(), []
    with order.turn(_request(LONG, "first turn")):
        pass  # answered: its prefix is cached now
    busy = _send_in_thread(order, _request(LONG, "first turn", "a reply"), log, "busy", hold_s=0.5)
    time.sleep(0.05)
    started = time.monotonic()
    with order.turn(_request(LONG, "first turn", "another reply")):  # shares what was answered: goes at once
        pass
    with order.turn(_request("short", "x")):
        pass
    with order.turn(_request("another user entirely. " * (MIN_SHARED_CHARS // 20))):
        pass
    assert time.monotonic() - started < 0.3
    busy.join(5)


def test_a_failed_leader_releases_its_followers_and_one_of_them_leads():
    order, log = PrefixOrder(), []
    leader = _send_in_thread(order, _request(LONG, "q"), log, "t0", hold_s=0.2, fail=True)
    time.sleep(0.05)
    followers = [_send_in_thread(order, _request(LONG, "q"), log, f"t{i}", hold_s=0.2) for i in (1, 2)]
    for thread in [leader, *followers]:
        thread.join(5)
    assert log[:2] == [("sent", "t0"), ("failed", "t0")]
    # not cached by a failure: the next one leads, the last follows it
    assert [event for event, _ in log[2:]] == ["sent", "answered", "sent", "answered"]


def test_a_follower_waits_no_longer_than_max_wait():
    order, log = PrefixOrder(max_wait_s=0.2), []
    leader = _send_in_thread(order, _request(LONG, "q"), log, "t0", hold_s=1.0)
    time.sleep(0.05)
    started = time.monotonic()
    with order.turn(_request(LONG, "q")):
        waited = time.monotonic() - started
    assert 0.15 < waited < 0.6
    leader.join(5)


@pytest.mark.parametrize("ordered", [True, False])
def test_over_http_the_trials_first_requests_hit_the_providers_cache_only_in_order(monkeypatch, ordered):
    monkeypatch.setenv("VITA_PREFIX_ORDER_KEY", "sk-test-prefix-order-0123456789")
    stub, _ = caching_stub(delay=0.3)
    try:
        client = LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_PREFIX_ORDER_KEY", cache="off",
                                       prompt_cache_order=ordered))
        messages = _request(LONG, "order me a dessert")["messages"]
        usages: list = []

        def trial(seed: int) -> None:
            usages.append(client.complete("agent", model="m", messages=messages, seed=seed).usage)

        threads = [threading.Thread(target=trial, args=(seed,)) for seed in range(4)]
        with client:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(10)
        hits = sorted(u.cached_prompt_tokens > 0 for u in usages)
        assert hits == ([False, True, True, True] if ordered else [False] * 4)
        assert len(stub.requests) == 4 and all(r["messages"] == messages for r in stub.requests)  # same requests
    finally:
        stub.close()


def test_a_tools_list_s_text_is_kept_by_identity_and_hashes_as_without():
    from pytest_vitabench.llm.prefix_order import KEPT_TOOLS, prefix_hashes

    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": LONG}} for i in range(3)]
    request = {**_request(LONG, "hello"), "tools": tools}
    order = PrefixOrder()
    assert prefix_hashes(request, order._tools_text(tools)) == prefix_hashes(request)
    assert order._tools_text(tools) is order._tools_text(tools)  # dumped once per list
    equal_copy = [dict(tool) for tool in tools]
    assert order._tools_text(equal_copy) == order._tools_text(tools) and len(order._tools) == 2
    for _ in range(KEPT_TOOLS + 5):
        order._tools_text([{"type": "function"}])
    assert len(order._tools) <= KEPT_TOOLS
