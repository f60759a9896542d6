"""What a domain package declares to the registry: its database, its tools, how its orders look."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .declare import ToolSet
from .entities import DomainDB, Order
from .environment import DomainEnvironment


@dataclass(frozen=True)
class DomainSpec:
    """One domain, as its package's ``SPEC`` declares it.

    Attributes:
        name: The domain's name in suites (``delivery``, ``instore``, ``ota``).
        db: Its database model (a :class:`DomainDB`); merged environments subclass several.
        tools: Its tool set (the 7 shared tools come on top).
        environment: The environment class of a single-domain subtask.
        order_view: How the agent sees the domain's own orders (``order_view(db, order)``), when it
            differs from the generic view; a merged environment uses it for ``order_types``.
        order_types: The order types the domain owns.
    """

    name: str
    db: type[DomainDB]
    tools: type[ToolSet]
    environment: type[DomainEnvironment] = DomainEnvironment
    order_view: Callable[[Any, Order], dict[str, Any]] | None = None
    order_types: tuple[str, ...] = ()
