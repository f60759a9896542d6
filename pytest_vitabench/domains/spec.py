"""What a domain package declares to the registry: its database, its tools, how its orders look."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .declare import ToolSet
from .entities import DomainDB, Order


@dataclass(frozen=True)
class DomainSpec:
    """One domain, as its package's ``SPEC`` declares it.

    Attributes:
        name: The domain's name in suites (``delivery``, ``instore``, ``ota``).
        db: Its database model (a :class:`DomainDB`); merged environments subclass several.
        tools: Its tool set (the 7 shared tools come on top).
        order_view: How the agent sees the domain's orders (``order_view(db, order)``), when it differs from
            the generic view: every order of a single-domain subtask, the ``order_types`` of a merged one.
        order_types: The order types the domain owns.
    """

    name: str
    db: type[DomainDB]
    tools: type[ToolSet]
    order_view: Callable[[Any, Order], dict[str, Any]] | None = None
    order_types: tuple[str, ...] = ()
    _merged: dict[tuple[str, ...], type[DomainDB]] = field(default_factory=dict, init=False, repr=False,
                                                           compare=False)

    def db_with(self, others: tuple[DomainSpec, ...]) -> type[DomainDB]:
        """The database model of a subtask over this domain and ``others`` (merged once per combination).

        Every domain DB subclasses :class:`DomainDB`, so the merged model has the common fields once.
        """
        if not others:
            return self.db
        key = tuple(other.name for other in others)
        if key not in self._merged:
            name = "DB_" + "_".join((self.name, *key))
            bases = (self.db, *(other.db for other in others))
            self._merged[key] = type(name, bases, {"__module__": "pytest_vitabench.domains"})
        return self._merged[key]
