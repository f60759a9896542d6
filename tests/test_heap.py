"""The objects alive after collection are exempt from later cyclic collections."""

from __future__ import annotations

import gc

from pytest_vitabench.run.heap import GEN0_THRESHOLD, freeze_long_lived


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
