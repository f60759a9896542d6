"""The interleaved order of items: users shuffled by the seed, each user's items in their own order."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_vitabench.options.values import early_stop, parse_early_stop
from pytest_vitabench.run.schedule import interleaved, user_order


def suite(sizes: list[int]) -> list[tuple[str, str, int]]:
    """``(file, user, position)`` items in collection order: file by file, user by user."""
    return [(f"f{u % 2}.json", f"u{u}", n) for u, size in enumerate(sizes) for n in range(size)]


def user(item: tuple[str, str, int]) -> tuple[str, str]:
    return item[0], item[1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=8), st.integers(0, 2**32), st.one_of(st.none(),
       st.integers(1, 9)))
def test_a_reordering_that_keeps_each_users_items_in_sequence(sizes, seed, width):
    items = suite(sizes)
    order = interleaved(items, user, seed=seed, width=width)
    assert sorted(order) == sorted(items)
    for key in {user(i) for i in items}:
        assert [i for i in order if user(i) == key] == [i for i in items if user(i) == key]
    # At most `width` users are open at any point of the order.
    open_at, seen_last = set(), {}
    for n, item in enumerate(order):
        seen_last[user(item)] = n
    started: set = set()
    for n, item in enumerate(order):
        started.add(user(item))
        open_at = {u for u in started if seen_last[u] >= n}
        assert len(open_at) <= (width or len(sizes))
    # The order of the selection in the input does not matter, only the seed.
    shuffled_users = sorted({user(i) for i in items}, key=lambda _: random.Random(seed).random())
    regrouped = [i for key in shuffled_users for i in items if user(i) == key]
    assert interleaved(regrouped, user, seed=seed, width=width) == order


def test_every_user_starts_before_any_user_goes_on_and_width_one_runs_users_whole():
    items = suite([3, 2, 3, 1])
    order = interleaved(items, user, seed=7)
    first_round = order[:4]
    assert {user(i) for i in first_round} == {user(i) for i in items} and all(i[2] == 0 for i in first_round)
    users = user_order([user(i) for i in items], 7)
    assert [user(i) for i in first_round] == users
    one_at_a_time = interleaved(items, user, seed=7, width=1)
    assert one_at_a_time == [i for key in users for i in items if user(i) == key]


def test_seed_none_keeps_sorted_users_and_bad_width_is_refused():
    items = suite([2, 2])
    assert interleaved(items, user, seed=None) == [items[0], items[2], items[1], items[3]]
    with pytest.raises(ValueError, match="width"):
        interleaved(items, user, width=0)


@pytest.mark.parametrize(("value", "kind", "alpha"), [("exact", "exact", None), (" Alpha = 0.05", "statistical", 0.05),
                                                      ("off", "off", None), ("", "off", None),
                                                      ("alpha=0.5", "statistical", 0.5)])
def test_early_stop_values(value, kind, alpha):
    parsed = parse_early_stop(value)
    assert (parsed.kind, parsed.alpha) == (kind, alpha)
    assert parse_early_stop(str(parsed)) == parsed


@pytest.mark.parametrize("value", ["alpha=0", "alpha=0.6", "alpha=x", "alpha", "beta=0.1", "exactly"])
def test_bad_early_stop_values_say_what_is_accepted(value):
    with pytest.raises(ValueError, match="--vita-early-stop"):
        early_stop("--vita-early-stop", value)
