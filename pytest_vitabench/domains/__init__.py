"""Domain registry: validate environment dicts and build executable environments.

Each domain package declares a :class:`~.spec.DomainSpec` as ``SPEC``, imported on first use. A multi-domain
subtask (``"delivery,ota"``) gets one environment over one merged database offering the union of the tools.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import Environment, ToolAnswers
from .entities import load_db
from .environment import DomainEnvironment
from .shared_tools import SharedTools
from .spec import DomainSpec

DOMAINS = ("delivery", "instore", "ota")
#: The domains whose tools can answer through :class:`~.base.ToolAnswers` (``--vita-deviation tool-results``): all.
OFFICIAL_RESULT_DOMAINS = DOMAINS

__all__ = ["DOMAINS", "OFFICIAL_RESULT_DOMAINS", "build_environment", "domain_spec", "split_domains", "tool_names",
           "validate_environment"]


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


def domain_spec(name: str) -> DomainSpec:
    """The registered :class:`~.spec.DomainSpec` of one domain name (its package imported on first use).

    Raises:
        ValueError: Unknown domain.
    """
    if name not in DOMAINS:
        raise ValueError(f"unknown domain {name!r}; known: {', '.join(DOMAINS)}")
    spec = importlib.import_module(f"{__name__}.{name}").SPEC
    if not isinstance(spec, DomainSpec) or spec.name != name:
        raise TypeError(f"{__name__}.{name}.SPEC is not the DomainSpec of {name!r}")
    return spec


def _db_model(names: list[str]) -> type[Any]:
    first, *others = (domain_spec(name) for name in names)
    return first.db_with(tuple(others))


def validate_environment(domain: str, environment: dict[str, Any]) -> None:
    """Validate a subtask's environment dict for its domain(s).

    Raises:
        pydantic.ValidationError: Error locations are relative to ``environment``.
        ValueError: Unknown domain.
    """
    _db_model(split_domains(domain)).model_validate(environment)


def build_environment(
    domain: str, environment: dict[str, Any], *, user_id: str, time: str, seed: int, language: str = "en",
    checks: list[str] | None = None, official_search: bool = False, answers: ToolAnswers | None = None,
) -> Environment:
    """A fresh environment for one episode, over a deep copy of ``environment``.

    Args:
        domain: A domain name or a comma-separated list of them.
        environment: The subtask's environment dict (never mutated).
        user_id: The current user's id (tools refuse any other).
        time: The effective "now" (``YYYY-MM-DD HH:MM:SS``); overrides ``environment["time"]``.
        seed: The trial seed; new record ids are derived from it.
        language: ``en`` or ``zh``.
        checks: The tool checks in force (``--vita-deviation tool-checks``; see
            :data:`pytest_vitabench.options.values.TOOL_CHECKS`); ``None``: all of them.
        official_search: Rank and filter with the search style of :attr:`.base.ToolRules.official_search`.
        answers: How the tools answer (``--vita-deviation tool-results``; see :class:`.base.ToolAnswers`);
            ``None``: JSON views.
    """
    names = split_domains(domain)
    specs = [domain_spec(name) for name in names]
    db = load_db(_db_model(names), environment, user_id=user_id, time=time or None)
    env = DomainEnvironment(domain=",".join(names), time=db.time, user_id=db.user_id, db=db, seed=seed,
                            language=language)
    if checks is not None:
        env.checks = frozenset(checks)
    env.official_search = official_search
    env.answers = answers
    env.add_tools(SharedTools(env).tools())
    for spec in specs:
        env.add_tools(spec.tools(env).tools())
        if spec.order_view is not None:
            # A domain's own environment shows every order its way; a merged one only the domain's orders.
            for order_type in spec.order_types if len(specs) > 1 else (None,):
                env.order_views[order_type] = spec.order_view
    return env


def tool_names(domain: str) -> list[str]:
    """The names of the tools a subtask of this domain (or comma-separated domains) offers."""
    declared = [*SharedTools.tool_names()]
    for name in split_domains(domain):
        declared.extend(domain_spec(name).tools.tool_names())
    return list(dict.fromkeys(declared))
