"""Keep the garbage collector off the objects that live for the whole run.

CPython's full collections walk every tracked object. When a run's first item starts, a process holds
thousands of pytest items, the plugin's modules and the suite's index, all alive until the end; left alone,
the collector keeps re-walking objects that can never be garbage. :func:`freeze_long_lived` moves what is
alive at that point to the permanent generation (``gc.freeze``): it is still freed by reference counting
as usual, only never scanned for cycles again. The run engine (:mod:`pytest_vitabench.engine.run`) calls
:func:`freeze_long_lived` and :func:`freeze_before_exit`; the suite loader builds users under
:func:`built_to_last`.
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
    """Build long-lived objects without the collector walking them, in a run that froze its heap.

    A user's validated models (tens of thousands of tracked objects) are built mid-run, when its first item
    starts, and live as long as its items run. Built under the collector, they set off young collections
    while they are made and are then walked by every older one. Here the collector is paused
    while the block runs and everything young is frozen when it ends, as after collection. Objects of other
    episodes that happen to be young at that moment are frozen too; they are still freed by reference counting,
    only a reference cycle among them would stay until the process ends.

    Outside such a run (``vitabench rejudge``, library use) this does nothing.
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
    """Exempt what the run built from the collections pytest makes as it unconfigures (call last).

    pytest collects garbage several times at the very end, to report unraisable exceptions of finalizers; over
    a large run's results, users and clients that walk takes seconds in every process, after the last item.
    What the run built is freed by reference counting when the process ends; only cycles made during the run
    are no longer searched for finalizer errors.
    """
    gc.freeze()
