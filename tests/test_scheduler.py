"""The episode scheduler and the run engine's look-ahead, as plain Python (no pytest machinery)."""

from __future__ import annotations

import asyncio
import threading

from _suites import tiny_suite, write_suite

from pytest_vitabench.options.config import RunConfig
from pytest_vitabench.run.engine.run import RunEngine
from pytest_vitabench.run.engine.scheduler import EpisodeScheduler
from pytest_vitabench.run.runner import ItemJob, ItemRunner
from pytest_vitabench.suite.loader import load_suite


def test_prepare_sees_each_waiting_key_once_before_it_starts():
    keys = [f"k{i}" for i in range(12)]
    started: list[str] = []
    prepared: list[tuple[str, bool]] = []  # (key, whether it had started by then)
    lock = threading.Lock()

    async def make(key: str) -> str:
        with lock:
            started.append(key)
        await asyncio.sleep(0.01)
        return key

    scheduler = EpisodeScheduler(
        concurrency=2, make=make, upcoming=lambda key: keys[keys.index(key):],
        prepare=lambda key: prepared.append((key, key in started)))
    try:
        assert [scheduler.result(key) for key in keys] == keys
    finally:
        scheduler.close()
    names = [key for key, _ in prepared]
    assert len(names) == len(set(names))  # once each
    assert not any(was_started for _, was_started in prepared)  # before its start, never after
    assert "k0" not in names and "k1" not in names  # the first slots start at once: nothing to wait for
    assert set(names) <= set(keys[2:]) and len(names) >= len(keys) - 4


def test_prepare_is_not_called_once_the_run_stops():
    prepared: list[str] = []
    keys = [f"k{i}" for i in range(6)]

    stop = threading.Event()

    async def make(key: str) -> str:
        stop.set()  # e.g. -x: the first item failed
        return key

    scheduler = EpisodeScheduler(concurrency=1, make=make, upcoming=lambda key: keys[keys.index(key):],
                                 should_stop=stop.is_set, prepare=prepared.append)
    try:
        assert scheduler.result("k0") == "k0"
    finally:
        scheduler.close()
    assert prepared == ["k1"]  # readied as k0 started; nothing more once the run stopped


def test_the_engine_validates_upcoming_users_one_at_a_time(tmp_path):
    path = write_suite(tmp_path / "tasks.json", tiny_suite())
    suite = load_suite(path, lazy=True, index_dir=tmp_path / "cache")
    first, second = suite.users
    engine = RunEngine(runner=ItemRunner(RunConfig.from_options({})), store=None, config_sha256="x",
                       concurrency=4)

    def job(user) -> ItemJob:
        return ItemJob("id", suite, user, 0, "none", 0, None, None, None)

    engine._validate_ahead(job(first))
    engine._validate_ahead(job(second))  # queued behind the first, for the one validating thread
    engine._validator.shutdown(wait=True)
    assert first.task is not None and second.task is not None
    assert first.task == load_suite(path).users[0].task
