"""pytest_plugin/xdist_queue.py: the load scheduler keeps every worker's queue deep enough for its episodes in flight,
and level, so that the workers run out of items together."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_vitabench.pytest_plugin.xdist_queue import make_deep_load_scheduler, top_up

pytest.importorskip("xdist")


class FakeWorker:
    """What xdist's ``LoadScheduling`` uses of a ``WorkerController``: a gateway id, a send, a shutdown."""

    def __init__(self, name: str):
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def _scheduler(pytester: pytest.Pytester, items: int, min_queued: int, workers: int = 2):
    config = pytester.parseconfig(f"--tx={workers}*popen")
    scheduler = make_deep_load_scheduler(config, None, min_queued=min_queued)
    nodes = [FakeWorker(f"gw{n}") for n in range(workers)]
    ids = [f"suite.json::U1::s{i}[none-t0]" for i in range(items)]
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, ids)
    scheduler.schedule()
    return scheduler, nodes


def _run_to_the_end(scheduler, nodes, slow: FakeWorker | None = None):
    """Every worker reports its oldest item in turn (``slow`` every other turn); returns each worker's queue
    when the last item was handed out, and checks the queue never ran shallow before that."""
    at_hand_out = None
    turn = 0
    while any(scheduler.node2pending[node] for node in nodes):
        turn += 1
        for node in nodes:
            if node is slow and turn % 2:
                continue
            queue = scheduler.node2pending[node]
            if queue:
                scheduler.mark_test_complete(node, queue[0], duration=1.0)
            if scheduler.pending:
                assert len(scheduler.node2pending[node]) >= 2
        if at_hand_out is None and not scheduler.pending:
            at_hand_out = [len(scheduler.node2pending[node]) for node in nodes]
    return at_hand_out


def test_top_up_waits_for_a_step_then_refills_to_the_target():
    assert top_up(30, target=32, step=4, available=100) == 0
    assert top_up(28, target=32, step=4, available=100) == 4
    assert top_up(3, target=32, step=4, available=10) == 10  # no more than is left


def test_the_workers_queues_stay_level_to_the_end(pytester):
    scheduler, nodes = _scheduler(pytester, items=784, min_queued=32)
    at_hand_out = _run_to_the_end(scheduler, nodes)
    # xdist's own scheduling leaves one worker up to 33 items more at this point (2 s of 16 episodes of 1 s);
    # steps of 32 // 8 items left up to 5; the last items go one at a time
    assert max(at_hand_out) - min(at_hand_out) <= 1
    assert sorted(nodes[0].sent + nodes[1].sent) == list(range(784))  # every item once
    assert all(node.shutting_down for node in nodes)


def test_a_slower_worker_gets_fewer_items_and_never_starves_the_other(pytester):
    scheduler, nodes = _scheduler(pytester, items=400, min_queued=16)
    _run_to_the_end(scheduler, nodes, slow=nodes[1])
    assert len(nodes[0].sent) > len(nodes[1].sent) and len(nodes[0].sent) + len(nodes[1].sent) == 400


@pytest.mark.parametrize("items, expected", [(20, [10, 10]), (9, [5, 4]), (100, [32, 32])])
def test_a_small_suite_is_shared_evenly_and_deep_from_the_start(pytester, items, expected):
    # xdist's first batch alone is a quarter of each worker's share: 2 items each for 20 items
    scheduler, nodes = _scheduler(pytester, items=items, min_queued=32)
    assert [len(node.sent) for node in nodes] == expected
    assert all(node.shutting_down for node in nodes) == (items <= 64)
