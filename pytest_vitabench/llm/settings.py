"""How every LLM role reaches its endpoint: one frozen settings object per client.

The settings name the environment variable that holds the key, never the key itself, so they can be
logged, compared and written to a report as they are.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..options.config import Shard
from ..options.parts import EndpointSettings
from ..store import default_root
from .prices import ModelPrice, load_prices

#: Placeholder key for local endpoints that need none (the openai client refuses an empty key).
LOCAL_KEY = "not-needed"

CacheMode = Literal["judge", "all", "off"]

#: The run-wide limits each of N shards divides by N.
SPLIT_LIMITS = ("rpm", "max_concurrency", "tpm")
#: The limits a shared limiter (``--vita-limits url``) holds for every shard: those are not split.
SHARED_LIMITS = ("rpm", "max_concurrency")

#: Roles cached in each ``--vita-cache`` mode. Judge, memory and embedding calls are pure functions of
#: their input worth paying for once; agent and user calls are what a trial samples, so caching them
#: is opt-in ("all") and always keyed by the trial seed so repeated trials stay independent.
CACHED_ROLES: dict[str, frozenset[str] | None] = {
    "judge": frozenset({"judge", "memory", "embeddings"}),
    "all": None,  # every role
    "off": frozenset(),
}


def base_urls(value: str | None) -> list[str | None]:
    """The endpoints of a ``--vita-base-url`` value: several replicas of one model are comma-separated;
    ``[None]`` (``$OPENAI_BASE_URL`` or OpenAI's default) when unset."""
    urls = [part.strip() for part in (value or "").split(",") if part.strip()]
    return list(urls) if urls else [None]


class MissingAPIKey(ValueError):
    """No key in the configured environment variable for an endpoint that needs one."""


def resolve_api_key(api_key_env: str, base_url: str | None) -> str:
    """Read the key from the environment.

    A custom ``base_url`` (vLLM, llama.cpp, a proxy) often needs no key, so it gets a placeholder;
    the OpenAI default endpoint without a key fails here, before any request, naming only the variable.
    """
    key = os.environ.get(api_key_env, "")
    if key:
        return key
    if base_url:
        return LOCAL_KEY
    raise MissingAPIKey(
        f"no API key: set ${api_key_env} (or --vita-api-key-env), or point --vita-base-url at a local endpoint"
    )


class LLMSettings(BaseModel):
    """Endpoint, resilience, limits, cache and prices of an :class:`~pytest_vitabench.llm.client.LLMClient`.

    Attributes:
        base_url: The OpenAI-compatible endpoint; ``None`` means ``$OPENAI_BASE_URL`` or OpenAI's default.
            Several comma-separated URLs are replicas of one model: requests go to the one with the fewest
            in flight, and one whose circuit breaker opens is drained (see :class:`~.client.LLMClient`).
        max_retries: Retries after the first attempt on 408/409/429, 5xx, timeouts and connection errors.
        backoff_base_s: The first backoff; it doubles per attempt, with jitter.
        backoff_max_s: The cap of the computed backoff.
        retry_after_max_s: The cap of a server's ``Retry-After``; a longer wait is clipped to it.
        rpm: Requests per ``rpm_window_s`` across every process sharing ``state_dir``; ``None``: unlimited.
        max_concurrency: Requests in flight across every process sharing ``state_dir``; ``None``: unlimited.
        tpm: Tokens (prompt plus completion, estimated before sending and corrected by the response's
            usage) per ``tpm_window_s`` across every process sharing ``state_dir``; ``None``: unlimited.
        max_wait_s: The longest wait for a rate-limit or concurrency slot before the call fails.
        cache_dir: The disk store's root (answers under ``llm/``); ``None`` disables caching whatever ``cache`` says.
        state_dir: The directory through which processes share ``rpm`` and ``max_concurrency``; ``None``
            means a private directory, i.e. the limits hold within this process only.
        circuit_breaker: Consecutive failed calls to the endpoint after which no more requests are sent in
            this run (see :mod:`pytest_vitabench.llm.endpoints`); ``0`` (the default for a client built
            directly) disables it. The plugin's ``--vita-limits circuit-breaker`` defaults to 5.
        limits_url: A Redis server holding ``rpm`` and ``max_concurrency`` for every process that names it, on
            any machine (:class:`~.ratelimit.RedisSlots`); ``None``: the limits hold through ``state_dir``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=6, ge=0)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=60.0, ge=0)
    retry_after_max_s: float = Field(default=600.0, ge=0)
    rpm: int | None = Field(default=None, ge=1)
    rpm_window_s: float = Field(default=60.0, gt=0)
    max_concurrency: int | None = Field(default=None, ge=1)
    tpm: int | None = Field(default=None, ge=1)
    tpm_window_s: float = Field(default=60.0, gt=0)
    max_wait_s: float = Field(default=3600.0, gt=0)
    cache: CacheMode = "judge"
    cache_dir: Path | None = None
    state_dir: Path | None = None
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    circuit_breaker: int = Field(default=0, ge=0)
    #: Let siblings with a long shared prompt prefix follow their leader (:mod:`.prefix_order`). No option sets
    #: it: it changes no request and measured no wall-time cost (docs/cost.md); ``False`` is for measurements.
    prompt_cache_order: bool = True
    limits_url: str | None = None

    def caches(self, role: str) -> bool:
        """Whether calls of ``role`` go through the disk cache."""
        if self.cache_dir is None:
            return False
        roles = CACHED_ROLES[self.cache]
        return roles is None or role in roles


def settings_for_run(endpoint: EndpointSettings, *, rootdir: Path, state_dir: Path | str | None = None,
                     cache_dir: Path | str | None = None, shard: Shard | None = None) -> LLMSettings:
    """The settings of the run's one client, from its endpoint settings (``--vita-base-url``, limits, cache, ...).

    Args:
        rootdir: pytest's rootdir: home of the default cache directory and of a relative prices file.
        state_dir: The directory shared by the controller and every xdist worker of the run.
        cache_dir: The disk store's root (default ``<rootdir>/.vitabench/cache``; LLM answers go to ``llm/``).
        shard: This process's shard of the run: it takes its part of each run-wide limit, so N shards stay
            within the run's limits (a shared limiter's limits are whole for every shard: it counts them all).

    Raises:
        ValueError: A prices file that cannot be read. (A base URL that carries credentials is refused by the
            client, built only when a role calls the endpoint.)
    """
    e = endpoint
    limits = {"rpm": e.rpm or None, "max_concurrency": e.max_concurrency or None, "tpm": e.tpm or None}
    if shard is not None and shard.count > 1:
        limits.update({name: shard.divide(limit) for name, limit in limits.items()
                       if limit and name in SPLIT_LIMITS and not (e.limits_url and name in SHARED_LIMITS)})
    return LLMSettings(
        base_url=e.base_url or None, api_key_env=e.api_key_env, timeout_s=e.timeout,
        rpm=limits["rpm"], rpm_window_s=e.rpm_window, max_concurrency=limits["max_concurrency"],
        tpm=limits["tpm"], tpm_window_s=e.rpm_window,
        cache=e.cache, circuit_breaker=e.circuit_breaker, limits_url=e.limits_url,
        cache_dir=Path(cache_dir) if cache_dir else default_root(rootdir),
        state_dir=Path(state_dir) if state_dir else None,
        prices=load_prices(e.prices, base_dir=Path(rootdir)),
    )
