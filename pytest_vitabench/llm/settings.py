"""How every LLM role reaches its endpoint: one frozen settings object per client.

The settings name the environment variable that holds the key, never the key itself, so they can be
logged, compared and written to a report as they are.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .prices import ModelPrice

#: Placeholder key for local endpoints that need none (the openai client refuses an empty key).
LOCAL_KEY = "not-needed"

CacheMode = Literal["judge", "all", "off"]

#: Roles cached in each ``--vita-cache`` mode. Judge, memory and embedding calls are pure functions of
#: their input worth paying for once; agent and user calls are what a trial samples, so caching them
#: is opt-in ("all") and always keyed by the trial seed so repeated trials stay independent.
CACHED_ROLES: dict[str, frozenset[str] | None] = {
    "judge": frozenset({"judge", "memory", "embeddings"}),
    "all": None,  # every role
    "off": frozenset(),
}


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
        api_key_env: The environment variable that holds the key.
        timeout_s: Seconds per HTTP request.
        max_retries: Retries after the first attempt on 408/409/429, 5xx, timeouts and connection errors.
        backoff_base_s: The first backoff; it doubles per attempt, with jitter.
        backoff_max_s: The cap of the computed backoff.
        retry_after_max_s: The cap of a server's ``Retry-After``; a longer wait is clipped to it.
        rpm: Requests per ``rpm_window_s`` across every process sharing ``state_dir``; ``None``: unlimited.
        rpm_window_s: The sliding window of ``rpm`` (60 s; shorter only in tests).
        max_concurrency: Requests in flight across every process sharing ``state_dir``; ``None``: unlimited.
        max_wait_s: The longest wait for a rate-limit or concurrency slot before the call fails.
        cache: ``judge`` (judge, memory and embedding calls), ``all`` or ``off``.
        cache_dir: The disk store's root (answers under ``llm/``); ``None`` disables caching whatever ``cache`` says.
        state_dir: The directory through which processes share ``rpm`` and ``max_concurrency``; ``None``
            means a private directory, i.e. the limits hold within this process only.
        prices: USD per million tokens by model name.
        circuit_breaker: Consecutive failed calls to the endpoint after which no more requests are sent in
            this run (see :mod:`pytest_vitabench.llm.breaker`); ``0`` (the default for a client built
            directly) disables it. The plugin's ``--vita-circuit-breaker`` defaults to 5.
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
    max_wait_s: float = Field(default=3600.0, gt=0)
    cache: CacheMode = "judge"
    cache_dir: Path | None = None
    state_dir: Path | None = None
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    circuit_breaker: int = Field(default=0, ge=0)

    def caches(self, role: str) -> bool:
        """Whether calls of ``role`` go through the disk cache."""
        if self.cache_dir is None:
            return False
        roles = CACHED_ROLES[self.cache]
        return roles is None or role in roles


def _limit(value: object, option: str) -> int | None:
    """A positive limit; empty, ``0`` and ``none`` mean unlimited."""
    if value is None or str(value).strip().lower() in ("", "0", "none", "unlimited"):
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ValueError(f"{option} must be a whole number (0 for unlimited), got {value!r}") from None
    if number < 0:
        raise ValueError(f"{option} must not be negative, got {value!r}")
    return number or None


def settings_from_options(*, base_url: str | None, api_key_env: str, rootdir: Path,
                          state_dir: Path | str | None = None, rpm: object = None, max_concurrency: object = None,
                          timeout: object = None, cache: object = None,
                          prices: str | Path | Mapping[str, Any] | None = None,
                          cache_dir: Path | str | None = None, circuit_breaker: object = None) -> LLMSettings:
    """Settings from raw command-line / ini values (strings or ``None``), as the plugin reads them.

    Args:
        base_url: ``--vita-base-url`` (or ``$OPENAI_BASE_URL``).
        api_key_env: ``--vita-api-key-env``.
        rootdir: pytest's rootdir: home of the default cache directory and of a relative prices file.
        state_dir: The directory shared by the controller and every xdist worker of the run.
        rpm: ``--vita-rpm``: requests per minute for the whole run; empty or 0: unlimited.
        max_concurrency: ``--vita-max-concurrency``: requests in flight for the whole run; empty or 0: unlimited.
        timeout: ``--vita-timeout``: seconds per request (default 120).
        cache: ``--vita-cache``: ``judge`` (default), ``all`` or ``off``.
        prices: ``--vita-prices`` / ini ``vita_prices``: inline spec or a ``.toml``/``.json`` file.
        cache_dir: The disk store's root (default ``<rootdir>/.vitabench/cache``; LLM answers go to ``llm/``).
        circuit_breaker: ``--vita-circuit-breaker``: consecutive failed calls that stop requests to the
            endpoint (default 5; 0 disables).

    Raises:
        ValueError: A value is malformed; the message names the option. A base URL that carries
            credentials is refused (:class:`~.secrets.CredentialsInURL`), its credentials redacted.
    """
    from ..store import default_root
    from .prices import load_prices
    from .secrets import check_base_url

    check_base_url(base_url)
    mode = str(cache or "judge").strip().lower()
    if mode not in CACHED_ROLES:
        from ..option_values import did_you_mean

        hint = did_you_mean(mode, CACHED_ROLES)
        raise ValueError(f"--vita-cache must be one of all, judge, off; got {cache!r}{hint}")
    seconds = 120.0
    if timeout not in (None, ""):
        try:
            seconds = float(str(timeout))
        except ValueError:
            raise ValueError(f"--vita-timeout must be a number of seconds, got {timeout!r}") from None
        if seconds <= 0:
            raise ValueError(f"--vita-timeout must be positive, got {timeout!r}")
    breaker = 5
    if circuit_breaker not in (None, ""):
        try:
            breaker = int(str(circuit_breaker).strip())
        except ValueError:
            breaker = -1
        if breaker < 0:
            raise ValueError(f"--vita-circuit-breaker must be a whole number of failed calls (0 disables it), "
                             f"got {circuit_breaker!r}")
    return LLMSettings(
        circuit_breaker=breaker,
        base_url=base_url or None, api_key_env=api_key_env, timeout_s=seconds,
        rpm=_limit(rpm, "--vita-rpm"), max_concurrency=_limit(max_concurrency, "--vita-max-concurrency"),
        cache=mode,  # type: ignore[arg-type]
        cache_dir=Path(cache_dir) if cache_dir else default_root(rootdir),
        state_dir=Path(state_dir) if state_dir else None,
        prices=load_prices(prices, base_dir=Path(rootdir)),
    )
