"""What an xdist worker knows about its upcoming items, and a load scheduler that keeps workers fed.

pytest-xdist has no public API for either, so this module is the one place that reads its internals:

* :func:`worker_queue` finds the worker's ``WorkerInteractor`` among the registered plugins (it has
  ``torun``, ``item_index`` and ``nextitem_index``) and reads the indices queued in ``torun`` under its
  lock: ``TestQueue.lock()`` in xdist >= 3.6, ``queue.Queue.queue`` under its mutex before that. Anything
  else (a future xdist) degrades to the current and next item only, i.e. a concurrency of 2.
* :class:`DeepLoadScheduling` is xdist's ``load`` scheduling, except for how many items each worker has
  queued: about ``2 x --vita-concurrency``, topped up in small steps as its reports come in. xdist's own
  heuristic holds back new items from a worker whose last item took more than 0.1 s until it is down to 2
  queued items, which would cut a worker running 16 LLM episodes at once back to 2; and otherwise it sends
  chunks of up to a quarter of what is left, so that when the last items are handed out one worker may hold
  dozens more than the other and finish seconds later (with 16 episodes of ~1 s in flight, every 16 extra
  items are a second alone). Small top-ups keep the queues level, and single items once the last
  ``concurrency x workers`` are handed out, so the workers finish together.
  Installed through ``pytest_xdist_make_scheduler``, for ``--dist load`` only.
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


def top_up(queued: int, *, target: int, step: int, available: int) -> int:
    """How many items to send a worker that has ``queued`` items not yet reported.

    Nothing while it holds more than ``target - step``; then enough to bring it back to ``target`` (at most
    what is ``available``). Sending ``step`` or more at a time keeps the messages few; small steps keep the
    workers' queues within ``step`` of each other when the last items are handed out.
    """
    if queued > target - step:
        return 0
    return min(available, target - queued)


def make_deep_load_scheduler(config: Any, log: Any, min_queued: int) -> Any:
    """xdist's ``LoadScheduling`` keeping about ``min_queued`` items queued per worker (see the module doc).

    Args:
        min_queued: The queue depth to keep: the episodes in flight on a worker plus as many again, which
            covers the items that finished ahead of the one pytest is reporting.
    """
    from xdist.scheduler import LoadScheduling

    step = max(1, min_queued // 8)

    class DeepLoadScheduling(LoadScheduling):
        def check_schedule(self, node: Any, duration: float = 0) -> None:
            if node.shutting_down:
                return
            if not self.pending:  # nothing left to hand out: xdist shuts the worker down
                super().check_schedule(node, duration)
                return
            # Near the end, one item at a time: the queues each worker holds when the last item is handed out
            # then differ by at most one, i.e. the workers finish within ~1/N s of each other, not step/N s.
            ending = len(self.pending) <= min_queued * len(self.nodes)
            count = top_up(len(self.node2pending[node]), target=min_queued, step=1 if ending else step,
                           available=len(self.pending))
            if count:
                self._send_tests(node, count)

        def schedule(self) -> None:
            first = self.collection is None
            super().schedule()
            if first and self.pending and self.collection:
                # xdist's first batch is a quarter of each worker's share: on a suite of fewer than
                # 8 x min_queued items that is fewer than the worker runs at once, and it would get more
                # only as its first (slowest, ~1 s) items report.
                self._fill_evenly()

        def _fill_evenly(self) -> None:
            nodes = [node for node in self.nodes if not node.shutting_down]
            wanted = {node: max(0, min_queued - len(self.node2pending[node])) for node in nodes}
            given = dict.fromkeys(nodes, 0)
            left = len(self.pending)
            while left and any(given[node] < wanted[node] for node in nodes):
                for node in nodes:  # round robin: too few items are shared evenly
                    if left and given[node] < wanted[node]:
                        given[node] += 1
                        left -= 1
            for node in nodes:
                if given[node]:
                    self._send_tests(node, given[node])
            if not self.pending:
                for node in nodes:
                    node.shutdown()

    return DeepLoadScheduling(config, log)
