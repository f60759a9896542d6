"""The objects alive after collection are exempt from later cyclic collections."""

from __future__ import annotations

import gc

from pytest_vitabench.heap import GEN0_THRESHOLD, freeze_long_lived


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


def test_built_to_last_does_nothing_outside_a_frozen_run(monkeypatch):
    from pytest_vitabench import heap

    monkeypatch.setattr(heap, "_run_frozen", False)
    frozen = gc.get_freeze_count()
    with heap.built_to_last():
        assert gc.isenabled()
        kept = [{"value": [i]} for i in range(100)]
    assert gc.get_freeze_count() == frozen
    assert kept


def test_built_to_last_pauses_the_collector_and_freezes_what_it_built(monkeypatch):
    from pytest_vitabench import heap

    monkeypatch.setattr(heap, "_run_frozen", True)
    frozen = gc.get_freeze_count()
    try:
        with heap.built_to_last():
            with heap.built_to_last():  # nested (another thread validating): still paused when the inner ends
                pass
            assert not gc.isenabled()
            kept = [{"value": [i]} for i in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(kept)
    finally:
        gc.unfreeze()
        gc.enable()
