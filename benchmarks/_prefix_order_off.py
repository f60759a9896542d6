"""A pytest plugin for measurements only (``-p _prefix_order_off``): requests are sent the moment they are
ready, as before :mod:`pytest_vitabench.llm.prefix_order` existed, so its effect can be measured. No user
option does this: the order changes no request and measured no wall-time cost (docs/cost.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


def pytest_configure(config: Any) -> None:
    from pytest_vitabench.llm.prefix_order import PrefixOrder

    @contextlib.contextmanager
    def at_once(self: PrefixOrder, request: dict[str, Any]) -> Iterator[None]:
        yield

    PrefixOrder.turn = at_once  # type: ignore[method-assign]
