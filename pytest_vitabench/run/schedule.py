"""The order items run in when a gate may stop early: users interleaved across the suite.

In file order, the first part of a run is the first file's users, one domain or difficulty at a time, and its
figures say little about the whole suite until late. Interleaved, users are taken in a seeded random order
(whatever the files), and the first items of many users run before the later items of any: an early part of
the run is a sample of the whole. Each user's items keep their order (subtasks in sequence, the backends and
trials as collected), because a user's memory carries over from one subtask to the next.

The random order of users is also what statistical early stopping samples (:mod:`pytest_vitabench.report.
sequential`): it reads users in this order, so the order must not depend on any outcome. Pure functions.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

Item = TypeVar("Item")


def user_order(users: Sequence[Any], seed: int | None) -> list[Any]:
    """The users (each once, sortable keys such as ``(suite, user_id)``) in the run's order: sorted, then
    shuffled by ``seed`` (``None``: sorted). Every process computes the same order from the same selection."""
    ordered = sorted(set(users))
    if seed is not None:
        random.Random(seed).shuffle(ordered)
    return ordered


def interleaved(items: Sequence[Item], user_of: Callable[[Item], Hashable], *, seed: int | None = 0,
                width: int | None = None) -> list[Item]:
    """The items, users interleaved: round robin over the users open at a time, one item of each per round.

    Args:
        items: In collection order (a user's items in the order they must run).
        user_of: An item's user key (sortable, e.g. ``(suite, user_id)``).
        seed: Shuffles the users (:func:`user_order`); ``None`` keeps them sorted.
        width: Users open at a time (a user that ends lets the next one in); ``None``: all of them. A width
            near the number of items the run keeps in flight finishes users early, which statistical early
            stopping needs (it reads finished users only).

    Returns:
        The same items, reordered.

    Raises:
        ValueError: If ``width`` is below 1.
    """
    if width is not None and width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    queues: dict[Hashable, deque[Item]] = {}
    for item in items:
        queues.setdefault(user_of(item), deque()).append(item)
    waiting = deque(user_order(list(queues), seed))
    limit = len(waiting) if width is None else width
    open_users: list[Hashable] = []
    out: list[Item] = []
    while waiting or open_users:
        while waiting and len(open_users) < limit:
            open_users.append(waiting.popleft())
        still_open = []
        for user in open_users:
            out.append(queues[user].popleft())
            if queues[user]:
                still_open.append(user)
        open_users = still_open
    return out
