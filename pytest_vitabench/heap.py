"""Keep the garbage collector off the objects that live for the whole run.

``gc.freeze`` moves objects to the permanent generation: still freed by reference counting, never scanned
for cycles again. The run engine calls :func:`freeze_long_lived` and :func:`freeze_before_exit`; the suite
loader builds users under :func:`built_to_last`.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

GEN0_THRESHOLD = 10_000

_pause_lock = threading.Lock()
_pauses = 0
#: Set by :func:`freeze_long_lived`. (``gc.get_freeze_count`` would tell too, but it walks every frozen object.)
_run_frozen = False


def freeze_long_lived() -> None:
    """Collect once, then exempt every surviving object from later collections (call when the run starts)."""
    global _run_frozen
    gc.collect()
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *gc.get_threshold()[1:])
    _run_frozen = True


@contextlib.contextmanager
def built_to_last() -> Iterator[None]:
    """Build long-lived objects (a user's validated models, made mid-run) without the collector walking them.

    The collector is paused while the block runs and everything young is frozen when it ends. Young objects
    of other episodes are frozen too: still freed by reference counting, only a cycle among them stays until
    the process ends. Outside a run that froze its heap (``vitabench rejudge``, library use) this does nothing.
    """
    global _pauses
    if not _run_frozen:
        yield
        return
    with _pause_lock:
        _pauses += 1
        gc.disable()
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0:
                gc.freeze()
                gc.enable()


def freeze_before_exit() -> None:
    """Exempt what the run built from the collections pytest makes as it unconfigures (call last); cycles
    made during the run are then no longer searched for finalizers' unraisable exceptions."""
    gc.freeze()
