"""The objects alive after collection, and each parsed user, are exempt from later cyclic collections."""

from __future__ import annotations

import gc
import threading

from _suites import tiny_suite, write_suite

import pytest_vitabench.run.heap as heap
from pytest_vitabench.run.heap import GEN0_THRESHOLD, FrozenValidation, freeze_long_lived
from pytest_vitabench.suite.loader import load_suite


def test_freeze_long_lived_exempts_survivors_and_raises_the_young_threshold():
    before = gc.get_threshold()
    try:
        survivors = [{"value": [i]} for i in range(1000)]
        freeze_long_lived()
        assert gc.get_freeze_count() >= len(survivors)
        assert gc.get_threshold() == (GEN0_THRESHOLD, *before[1:])
        assert all(gc.is_tracked(item) for item in survivors)  # still objects, freed by refcount as usual
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_users_are_parsed_with_the_collector_paused_and_what_they_built_is_frozen(tmp_path, monkeypatch):
    suite = load_suite(write_suite(tmp_path / "tasks.json", tiny_suite()), lazy=True, index_dir=tmp_path / "cache")
    enabled_while_parsing: list[bool] = []
    real = heap.ensure_user

    def watched(suite_, user_):
        enabled_while_parsing.append(gc.isenabled())
        real(suite_, user_)

    monkeypatch.setattr(heap, "ensure_user", watched)
    validate = FrozenValidation()
    before = gc.get_freeze_count()
    try:
        threads = [threading.Thread(target=validate, args=(suite, user)) for user in suite.users]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        frozen, enabled_after = gc.get_freeze_count(), gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()
    assert enabled_while_parsing == [False] * len(suite.users) and len(suite.users) >= 2
    assert all(user.task is not None for user in suite.users)
    assert enabled_after  # on again once the last parse ended
    assert frozen > before  # the parsed users are no longer walked by collections
    assert all(gc.is_tracked(user.task) for user in suite.users)
