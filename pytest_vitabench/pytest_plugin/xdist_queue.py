"""What an xdist worker knows about its upcoming items, and a load scheduler that keeps workers fed.

pytest-xdist has no public API for either, so this is the one module that reads its internals. An xdist it
does not know degrades to the current and next item only (a concurrency of 2). :class:`DeepLoadScheduling`
is xdist's ``load`` scheduling keeping about ``2 x --vita-concurrency`` items queued per worker, topped up in
small steps: xdist's own heuristic cuts a worker with slow items back to 2 queued, and its large chunks near
the end leave one worker finishing long after the others.
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
    """How many items to send a worker that has ``queued`` items not yet reported: nothing while it holds
    more than ``target - step``, then enough to bring it back to ``target`` (at most ``available``)."""
    if queued > target - step:
        return 0
    return min(available, target - queued)


def make_deep_load_scheduler(config: Any, log: Any, min_queued: int) -> Any:
    """xdist's ``LoadScheduling`` keeping about ``min_queued`` items queued per worker: the episodes in
    flight on a worker plus as many again, for the items that finished ahead of the one pytest reports."""
    from xdist.scheduler import LoadScheduling

    step = max(1, min_queued // 8)

    class DeepLoadScheduling(LoadScheduling):
        def check_schedule(self, node: Any, duration: float = 0) -> None:
            if node.shutting_down:
                return
            if not self.pending:  # nothing left to hand out: xdist shuts the worker down
                super().check_schedule(node, duration)
                return
            # Near the end, one item at a time, so the workers' queues differ by at most one and they finish together.
            ending = len(self.pending) <= min_queued * len(self.nodes)
            count = top_up(len(self.node2pending[node]), target=min_queued, step=1 if ending else step,
                           available=len(self.pending))
            if count:
                self._send_tests(node, count)

        def schedule(self) -> None:
            first = self.collection is None
            super().schedule()
            if first and self.pending and self.collection:
                # xdist's first batch is a quarter of each worker's share: on a small suite, fewer items
                # than the worker runs at once.
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
