"""Shared limits: several processes firing at one stub stay within the rate and concurrency limits.

Windows are scaled down (1 s instead of 60 s) so the run takes seconds; the limiter is the same code.
No assertion bounds a wait from above (the machine may be busy): waits are checked from below, and
"gave up" by the exception, not by the clock. ``benchmarks/llm_limits.py`` prints how close to the
limit the run-wide budget is used.
"""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest
from _limits import assert_serial_rate_held
from _stub_llm import StubLLM

from pytest_vitabench.llm import Limiter, LimiterTimeout
from pytest_vitabench.llm.retry import Backoff, parse_retry_after

PROCESSES = 3


def _fire(base_url: str, state_dir: str, requests: int, settings: dict, barrier) -> None:
    """One worker process: build a client, wait for the others, then send ``requests`` calls."""
    from pytest_vitabench.llm import LLMClient, LLMSettings

    client = LLMClient(LLMSettings(base_url=base_url, api_key_env="VITA_NO_KEY", state_dir=state_dir, cache="off",
                                   **settings))
    import openai  # noqa: F401 - pay the import before the start line, not inside the measured window

    barrier.wait(timeout=30)
    for i in range(requests):
        client.complete("agent", model="m", messages=[{"role": "user", "content": f"{i}"}])


def _run_processes(stub: StubLLM, state_dir, requests: int, **settings) -> float:
    # A fork server, not a fork of this process (it runs the stub's threads); it imports the heavy modules
    # once for all the children of this file.
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["openai", "pytest_vitabench.llm", __name__])
    barrier = ctx.Barrier(PROCESSES + 1)
    procs = [ctx.Process(target=_fire, args=(stub.base_url, str(state_dir), requests, settings, barrier))
             for _ in range(PROCESSES)]
    for proc in procs:
        proc.start()
    barrier.wait(timeout=30)
    start = time.monotonic()
    for proc in procs:
        proc.join(timeout=30)
    assert [proc.exitcode for proc in procs] == [0] * PROCESSES
    return time.monotonic() - start


def test_the_rate_limit_holds_across_processes(stub, tmp_path):
    limit, window, per_process = 5, 1.0, 5
    # One request in flight at a time, so that arrival order proves the rate (tests/_limits.py); the rate
    # ring is still shared by three processes, each of which alone would send its 5 requests at once.
    elapsed = _run_processes(stub, tmp_path, per_process, rpm=limit, rpm_window_s=window, max_concurrency=1)
    total = PROCESSES * per_process
    busiest = stub.window_max(window)
    span = max(stub.times) - min(stub.times)
    print(f"\nrate limit {limit}/{window:g}s, {PROCESSES} processes x {per_process}: busiest {window:g}s window at "
          f"the stub held {busiest}; first to last arrival {span:.3f}s; {elapsed:.2f}s after the start line")
    assert len(stub.requests) == total
    # 15 requests at 5 per second: every 7 consecutive arrivals span a window, arrivals 1 and 12 two windows.
    assert_serial_rate_held(stub.times, limit, window)


def test_the_concurrency_limit_holds_across_processes(stub, tmp_path):
    stub.delay = 0.1
    elapsed = _run_processes(stub, tmp_path, 4, max_concurrency=2)
    print(f"\nconcurrency limit 2, {PROCESSES} processes x 4 requests of 0.1 s: at most {stub.peak_live} in "
          f"flight at the stub; {elapsed:.2f}s")
    assert len(stub.requests) == 12 and stub.peak_live == 2


def test_concurrency_slots_between_threads_and_the_bounded_wait(tmp_path):
    limiter = Limiter(tmp_path, max_concurrency=2, max_wait_s=5)
    in_flight, peak, lock = [0], [0], threading.Lock()

    def work() -> None:
        with limiter.concurrency_slot():
            with lock:
                in_flight[0] += 1
                peak[0] = max(peak[0], in_flight[0])
            time.sleep(0.03)
            with lock:
                in_flight[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak[0] == 2

    tight = Limiter(tmp_path, max_concurrency=2, max_wait_s=0.05)
    with limiter.concurrency_slot(), limiter.concurrency_slot():
        start = time.monotonic()
        with pytest.raises(LimiterTimeout):  # both slots held: gives up instead of waiting for them
            with tight.concurrency_slot():
                pass
        assert time.monotonic() - start > 0  # it polled before giving up
    with tight.concurrency_slot():  # released slots are free again: no LimiterTimeout
        pass


def test_rate_waits_sleep_until_the_slot_and_are_bounded(tmp_path):
    # Two free slots are taken without waiting (a limiter that may not wait at all grants them); a third
    # in the same window is not.
    no_wait = Limiter(tmp_path / "a", rpm=2, window_s=30, max_wait_s=0)
    no_wait.acquire_rate()
    no_wait.acquire_rate()
    with pytest.raises(LimiterTimeout):
        no_wait.acquire_rate()
    # The third sleeps until the first leaves the window (plus the guard against transit jitter).
    limiter = Limiter(tmp_path / "b", rpm=2, window_s=0.2)
    start = time.monotonic()
    for _ in range(3):
        limiter.acquire_rate()
    assert time.monotonic() - start >= 0.2 + limiter.store.guard_s
    bounded = Limiter(tmp_path, rpm=1, window_s=30, max_wait_s=0.05)
    bounded.acquire_rate()
    start = time.monotonic()
    with pytest.raises(LimiterTimeout):
        bounded.acquire_rate()  # the next slot is 30 s away: gives up (had it slept 30 s, it would succeed)
    assert time.monotonic() - start >= 0.05


def test_no_limits_means_no_files(tmp_path):
    limiter = Limiter(tmp_path / "state")
    assert limiter.acquire_rate() == 0.0
    with limiter.concurrency_slot() as waited:
        assert waited == 0.0
    assert not (tmp_path / "state").exists()


def test_backoff_is_exponential_capped_jittered_and_reproducible():
    backoff = Backoff(base_s=1.0, max_s=8.0, retry_after_max_s=30)
    delays = [backoff.delay(n, salt="req") for n in range(6)]
    assert delays == [backoff.delay(n, salt="req") for n in range(6)]
    for n, delay in enumerate(delays):
        ceiling = min(8.0, 2.0 ** n)
        assert ceiling / 2 <= delay <= ceiling
    assert backoff.delay(2, salt="a") != backoff.delay(2, salt="b")  # requests do not retry in lockstep
    assert backoff.delay(0, retry_after=12.5) == 12.5 and backoff.delay(0, retry_after=99) == 30


def test_retry_after_forms():
    now = 1_700_000_000.0
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    assert parse_retry_after({"Retry-After": "Tue, 14 Nov 2023 22:13:30 GMT"}, now=now) == pytest.approx(10.0)
    assert parse_retry_after({"Retry-After": "Tue, 14 Nov 2000 22:13:30 GMT"}, now=now) == 0.0
    for junk in ({"Retry-After": "soon"}, {"Retry-After": "-1"}, {}, None):
        assert parse_retry_after(junk) is None
