"""``--vita-limits-url redis://...``: the request-rate and in-flight budgets shared by every process that
names the same Redis server, on any machine.

Each budget is a sorted set changed by one Lua script (atomic on the server, so no two clients take the last
slot) and timed by the server's clock (the machines' clocks need not agree). A slot holder has a lease of
the request timeout plus a margin, so a process killed while holding a slot gives it back when it ends.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .ratelimit import LimiterTimeout, wait_for
from .secrets import redact_url, register_secret

#: Then the scope, the kind and the limit itself, so different limits never share a key.
KEY_PREFIX = "vitabench:limits"
#: Seconds a slot holder keeps its lease beyond the request timeout.
LEASE_MARGIN_S = 30.0
#: The growing sleep of a waiter for an in-flight slot (each try is a round trip to the server).
_POLL_S = (0.01, 0.5)

# KEYS[1] = the window's set; ARGV = window seconds, limit, member. Returns 0 (admitted) or the seconds to
# wait for the oldest request to leave the window.
_RATE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], t, ARGV[3])
  redis.call('EXPIRE', KEYS[1], math.ceil(window) + 1)
  return '0'
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tostring(tonumber(oldest[2]) + window - t)
"""

# KEYS[1] = the holders' set; ARGV = lease seconds, limit, member. Returns 1 (slot taken) or 0.
_SLOT = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t - tonumber(ARGV[1]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], t, ARGV[3])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1])) + 1)
  return 1
end
return 0
"""


class RedisLimiter:
    """The :class:`~pytest_vitabench.llm.ratelimit.Limiter` interface, with its budgets in Redis.

    Args:
        url: ``redis://[:password@]host:port/db`` (or ``rediss://``, ``unix://``).
        lease_s: How long a slot holder keeps its slot at most (a killed holder's slot comes back then).

    Raises:
        ValueError: The ``redis`` package is not installed, or the server cannot be reached.
    """

    def __init__(self, url: str, *, rpm: int | None = None, max_concurrency: int | None = None,
                 window_s: float = 60.0, max_wait_s: float = 3600.0, lease_s: float = 150.0, scope: str = "llm"):
        try:
            import redis
        except ImportError:
            raise ValueError("--vita-limits-url needs the redis package: pip install 'pytest-vitabench[redis]'") \
                from None
        self.rpm = rpm
        self.max_concurrency = max_concurrency
        self.window_s = window_s
        self.max_wait_s = max_wait_s
        self.lease_s = lease_s
        self.shown_url = redact_url(url)
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        try:
            self._redis: Any = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=10)
            register_secret(self._redis.connection_pool.connection_kwargs.get("password"))
            self._redis.ping()  # an unreachable server is a usage error before any item, not an error per item
        except (*self._errors, ValueError) as exc:
            raise ValueError(f"--vita-limits-url {self.shown_url}: cannot reach the Redis server: "
                             f"{type(exc).__name__}: {exc}") from None
        self._rate_key = f"{KEY_PREFIX}:{scope}:rate:{rpm}:{window_s:g}"
        self._slot_key = f"{KEY_PREFIX}:{scope}:inflight:{max_concurrency}"
        self._rate = self._redis.register_script(_RATE)
        self._slot = self._redis.register_script(_SLOT)

    def _run(self, script: Any, key: str, *args: Any) -> Any:
        """One script call; a lost server is a limiter failure (the call is not sent, the item errors)."""
        try:
            return script(keys=[key], args=list(args))
        except self._errors as exc:
            raise LimiterTimeout(f"the limits server {self.shown_url} failed: {type(exc).__name__}: {exc}") from None

    def __repr__(self) -> str:
        return f"RedisLimiter(rpm={self.rpm}, window_s={self.window_s:g}, max_concurrency={self.max_concurrency})"

    @contextmanager
    def concurrency_slot(self) -> Iterator[float]:
        """Hold one of ``max_concurrency`` slots for the body; yields the seconds spent waiting."""
        if not self.max_concurrency:
            yield 0.0
            return
        member = uuid.uuid4().hex

        def take() -> float | None:
            return None if int(self._run(self._slot, self._slot_key, self.lease_s, self.max_concurrency, member)) \
                else 0.0

        waited = wait_for(take, max_wait_s=self.max_wait_s, poll_s=_POLL_S,
                          refused=f"no free concurrency slot ({self.max_concurrency}, shared through Redis)")
        try:
            yield waited
        finally:
            try:
                self._redis.zrem(self._slot_key, member)
            except self._errors:  # the lease gives the slot back
                pass

    def acquire_rate(self) -> float:
        """Take a request slot in the current window, sleeping until one is free; returns the seconds waited."""
        if not self.rpm:
            return 0.0
        member = uuid.uuid4().hex

        def take() -> float | None:
            wait = float(self._run(self._rate, self._rate_key, self.window_s, self.rpm, member))
            return None if wait <= 0 else min(wait, self.window_s)

        return wait_for(take, max_wait_s=self.max_wait_s,
                        refused=f"no request slot ({self.rpm} per {self.window_s:g} s, shared through Redis)")
