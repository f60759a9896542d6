"""Keep the garbage collector off the objects that live for the whole run.

CPython's full collections walk every tracked object. After collection, a process holds thousands of
pytest items, the plugin's modules and the suite's index, all alive until the end; a paper-scale run
spent ~40% of its CPU in the collector (measured with ``gc.callbacks``, LLM agent at a stub), most of it
re-walking objects that could never be garbage. :func:`freeze_long_lived` moves what is alive at that
point to the permanent generation (``gc.freeze``): it is still freed by reference counting as usual,
only never scanned for cycles again.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 10_000


def freeze_long_lived() -> None:
    """Collect once, then exempt every surviving object from later collections (call after collection)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *gc.get_threshold()[1:])
