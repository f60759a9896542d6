"""What an xdist worker knows about its upcoming items, and a load scheduler that keeps workers fed.

pytest-xdist has no public API for either, so this module is the one place that reads its internals:

* :func:`worker_queue` finds the worker's ``WorkerInteractor`` among the registered plugins (it has
  ``torun``, ``item_index`` and ``nextitem_index``) and reads the indices queued in ``torun`` under its
  lock: ``TestQueue.lock()`` in xdist >= 3.6, ``queue.Queue.queue`` under its mutex before that. Anything
  else (a future xdist) degrades to the current and next item only, i.e. a concurrency of 2.
* :class:`DeepLoadScheduling` is xdist's ``load`` scheduling, except that it keeps at least
  ``2 x --vita-concurrency`` items queued on every worker. xdist's own heuristic holds back new items from
  a worker whose last item took more than 0.1 s until it is down to 2 queued items, which would cut a
  worker running 16 LLM episodes at once back to 2. Installed through ``pytest_xdist_make_scheduler``, for
  ``--dist load`` only.
"""

from __future__ import annotations

from typing import Any


def find_worker_interactor(config: Any) -> Any:
    for plugin in config.pluginmanager.get_plugins():
        if hasattr(plugin, "torun") and hasattr(plugin, "nextitem_index"):
            return plugin
    return None


def worker_queue(interactor: Any) -> list[int]:
    """The item indices queued on this worker after the current one (next item first)."""
    if interactor is None:
        return []
    out: list[int] = []
    following = getattr(interactor, "nextitem_index", None)
    if isinstance(following, int):
        out.append(following)
    queue: Any = getattr(interactor, "torun", None)
    lock = getattr(queue, "lock", None)
    try:
        if callable(lock):
            with lock() as items:
                queued = list(items)
        elif hasattr(queue, "queue") and hasattr(queue, "mutex"):
            with queue.mutex:
                queued = list(queue.queue)
        else:
            queued = []
    except Exception:  # an xdist we do not know: fall back to the next item only
        queued = []
    out.extend(index for index in queued if isinstance(index, int))
    return out


def make_deep_load_scheduler(config: Any, log: Any, min_queued: int) -> Any:
    from xdist.scheduler import LoadScheduling

    class DeepLoadScheduling(LoadScheduling):
        def check_schedule(self, node: Any, duration: float = 0) -> None:
            if node.shutting_down:
                return
            pending = self.node2pending[node]
            if self.pending and len(pending) < min_queued:
                self._send_tests(node, min(len(self.pending), 2 * min_queued - len(pending)))
                return
            super().check_schedule(node, duration)

    return DeepLoadScheduling(config, log)
