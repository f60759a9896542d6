"""--vita-limits url: the rate and in-flight budgets held in a real Redis server (Debian's redis-server, started
here on 127.0.0.1), shared by clients that share nothing else (as shards on several machines would be)."""

from __future__ import annotations

import threading
import time

import pytest
from _limits import assert_serial_rate_held
from _redis import SKIP_REASON, free_port, redis
from _stub_llm import StubLLM

from pytest_vitabench.llm import LLMClient, LLMSettings
from pytest_vitabench.llm.ratelimit import Limiter, LimiterTimeout, RedisSlots

pytestmark = pytest.mark.skipif(redis is None, reason=SKIP_REASON)


def _client(stub: StubLLM, tmp_path, name: str, **limits) -> LLMClient:
    # Each client its own state directory: only Redis can make them share a budget.
    return LLMClient(LLMSettings(base_url=stub.base_url, api_key_env="VITA_NO_KEY", cache="off",
                                 state_dir=tmp_path / name, **limits))


def _burst(clients: list[LLMClient], per_client: int) -> None:
    def send(client: LLMClient) -> None:
        for _ in range(per_client):
            client.complete("agent", model="m", messages=[{"role": "user", "content": "hi"}])

    threads = [threading.Thread(target=send, args=(c,)) for c in clients for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)


def test_two_clients_share_one_rate_budget_through_redis(redis_url, tmp_path):
    stub = StubLLM()
    try:
        clients = [_client(stub, tmp_path, n, rpm=4, rpm_window_s=1.0, max_concurrency=1, limits_url=redis_url)
                   for n in ("a", "b")]
        _burst(clients, per_client=3)  # 12 requests, 4 per second for both together
        assert len(stub.requests) == 12
        assert_serial_rate_held(stub.times, 4, 1.0)
    finally:
        stub.close()


def test_two_clients_share_one_in_flight_budget_and_without_redis_they_do_not(redis_url, tmp_path):
    stub = StubLLM(delay=0.1)
    try:
        shared = [_client(stub, tmp_path, n, max_concurrency=2, limits_url=redis_url) for n in ("a", "b")]
        _burst(shared, per_client=3)
        assert stub.peak_live <= 2 and len(stub.requests) == 12
        stub.peak_live = 0
        apart = [_client(stub, tmp_path, n, max_concurrency=2) for n in ("c", "d")]
        _burst(apart, per_client=3)
        assert stub.peak_live > 2  # the file limiter of another "machine" does not hold them back
    finally:
        stub.close()


def test_a_killed_holders_slot_comes_back_when_its_lease_ends(redis_url):
    store = RedisSlots(redis_url, rpm=None, max_concurrency=1, window_s=60, lease_s=0.5)
    limiter = Limiter(None, max_concurrency=1, max_wait_s=5, store=store)
    assert store.take_slot() is not None  # taken by a process killed before it released it
    start = time.monotonic()
    with limiter.concurrency_slot() as waited:
        assert 0.3 <= waited <= 3 and time.monotonic() - start < 3


def test_a_full_budget_times_out_naming_redis(redis_url):
    store = RedisSlots(redis_url, rpm=None, max_concurrency=1, window_s=60, lease_s=60)
    limiter = Limiter(None, max_concurrency=1, max_wait_s=0.2, store=store)
    with limiter.concurrency_slot(), pytest.raises(LimiterTimeout, match="shared through Redis"), \
            limiter.concurrency_slot():
        pass


def test_an_unreachable_server_is_a_clear_error_without_the_password():
    port = free_port()  # nothing listens there
    with pytest.raises(ValueError, match="--vita-limits url redis://\\*\\*\\*@127.0.0.1:.*cannot reach") as info:
        LLMClient(LLMSettings(base_url="http://127.0.0.1:9/v1", api_key_env="VITA_NO_KEY",
                              limits_url=f"redis://:hunter2secret@127.0.0.1:{port}/0", rpm=5))
    assert "hunter2secret" not in str(info.value)
