"""Keep the garbage collector off the objects that live for the whole run.

``gc.freeze`` moves objects to the permanent generation: still freed by reference counting, never scanned
for cycles again. The run engine calls :func:`freeze_long_lived` and :func:`freeze_before_exit`.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 10_000


def freeze_long_lived() -> None:
    """Collect once, then exempt every surviving object from later collections (call when the run starts)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *gc.get_threshold()[1:])


def freeze_before_exit() -> None:
    """Exempt what the run built from the collections pytest makes as it unconfigures (call last); cycles
    made during the run are then no longer searched for finalizers' unraisable exceptions."""
    gc.freeze()
