"""Domain registry: validate environment dicts and build executable environments.

Each domain package (``delivery``, ``instore``, ``ota``) exposes ``validate(environment)`` and
``build(environment, *, user_id, time, seed, language)``; for multi-domain subtasks (a comma-separated
domain such as ``"delivery,ota"``) it also exposes ``DB`` (its pydantic database model) and
``domain_tools(env)``, so one environment over one merged database offers the union of the tools
(shared tools once) and every order lives in one ``orders`` dict. Packages are imported lazily.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from .base import Environment

if TYPE_CHECKING:
    from .shared import DomainDB

DOMAINS = ("delivery", "instore", "ota")

__all__ = ["DOMAINS", "build_environment", "split_domains", "tool_names", "validate_environment"]


def split_domains(domain: str) -> list[str]:
    """The domain names of a (possibly comma-separated) domain string, deduplicated, in order.

    Raises:
        ValueError: An unknown or empty domain name.
    """
    names: list[str] = []
    for part in str(domain).split(","):
        name = part.strip().lower()
        if not name:
            continue
        if name not in DOMAINS:
            raise ValueError(f"unknown domain {name!r}; known: {', '.join(DOMAINS)}")
        if name not in names:
            names.append(name)
    if not names:
        raise ValueError("empty domain")
    return names


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")


@cache
def _merged_db(names: tuple[str, ...]) -> type[DomainDB]:
    # Every domain DB subclasses shared.DomainDB, so the merged model has the common fields once.
    bases = tuple(_module(name).DB for name in names)
    return cast("type[DomainDB]", type("DB_" + "_".join(names), bases, {"__module__": __name__}))


def validate_environment(domain: str, environment: dict[str, Any]) -> None:
    """Validate a subtask's environment dict for its domain(s).

    Raises:
        pydantic.ValidationError: Error locations are relative to ``environment``.
        ValueError: Unknown domain.
    """
    names = split_domains(domain)
    if len(names) == 1:
        _module(names[0]).validate(environment)
    else:
        _merged_db(tuple(names)).model_validate(environment)


def build_environment(
    domain: str, environment: dict[str, Any], *, user_id: str, time: str, seed: int, language: str = "en",
    checks: list[str] | None = None,
) -> Environment:
    """A fresh environment for one episode, over a deep copy of ``environment``.

    Args:
        domain: A domain name or a comma-separated list of them.
        environment: The subtask's environment dict (never mutated).
        user_id: The current user's id (tools refuse any other).
        time: The effective "now" (``YYYY-MM-DD HH:MM:SS``); overrides ``environment["time"]``.
        seed: The trial seed; new record ids are derived from it.
        language: ``en`` or ``zh``.
        checks: The tool checks we add over the official tools (``--vita-tool-checks``; see
            :data:`pytest_vitabench.profile.TOOL_CHECKS`); ``None``: all of them.
    """
    env = _build(domain, environment, user_id=user_id, time=time, seed=seed, language=language)
    if checks is not None:
        env.checks = frozenset(checks)
    return env


def _build(domain: str, environment: dict[str, Any], *, user_id: str, time: str, seed: int,
           language: str) -> Environment:
    names = split_domains(domain)
    if len(names) == 1:
        return _module(names[0]).build(environment, user_id=user_id, time=time, seed=seed, language=language)
    from .shared import DomainEnvironment, load_db, shared_tools

    db = load_db(_merged_db(tuple(names)), environment, user_id=user_id, time=time)
    env = DomainEnvironment(
        domain=",".join(names), time=db.time, user_id=db.user_id, db=db, seed=seed, language=language
    )
    env.add_tools(shared_tools(env))
    for name in names:
        module = _module(name)
        env.add_tools(module.domain_tools(env))
        _register_order_view(env, module, name)
    return env


def _register_order_view(env: Any, module: ModuleType, name: str) -> None:
    # A domain may show its orders its own way (ota adds flight times, hotel names ...). It opts in with
    # ``order_view(db, order)`` (or ``<domain>_order_view``) and the order types it owns, ``ORDER_TYPES``
    # (or ``models.ORDER_KINDS``).
    view = getattr(module, "order_view", None) or getattr(module, f"{name}_order_view", None)
    types = getattr(module, "ORDER_TYPES", None) or tuple(
        getattr(getattr(module, "models", None), "ORDER_KINDS", ())
    )
    if callable(view):
        for order_type in types:
            env.order_views[order_type] = lambda order, _view=view: _view(env.db, order)


@cache
def _tool_names(names: tuple[str, ...]) -> tuple[str, ...]:
    env = build_environment(",".join(names), {}, user_id="U0", time="2025-01-01 00:00:00", seed=0)
    return tuple(env.tools)


def tool_names(domain: str) -> list[str]:
    """The names of the tools a subtask of this domain (or comma-separated domains) offers."""
    return list(_tool_names(tuple(split_domains(domain))))
