"""Preflight: one cheap request per configured model and endpoint before the first item.

Without it a wrong key, a misspelled model or an unreachable URL shows up as every item's error, each after
the full retry budget. An answer proves the endpoint; so do HTTP 400/422 (the server knows the model and
only dislikes a parameter, e.g. ``max_tokens`` on a reasoning model) and 429 unless it says the quota is
used up (the run's own retries wait).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..agents import BUILTIN_AGENTS
from ..llm import Ledger, LLMClient, LLMError
from ..llm.client import endpoint_url
from ..llm.settings import base_urls
from ..options.values import unknown_model_hint

if TYPE_CHECKING:
    from .wiring import Benchmark

#: Marks preflight requests, so proxies and test stubs can tell them from the run's own.
PREFLIGHT_HEADER = "X-Vitabench-Preflight"
#: Statuses that prove the endpoint, the key and the model are fine even though this request failed.
_ANSWERED = frozenset({400, 422, 429})


@dataclass
class Check:
    """One request to make: a model at an endpoint (``kind``: ``chat`` or ``embeddings``; ``base_url`` as
    configured), and every role that uses it."""

    kind: str
    model: str
    base_url: str | None
    roles: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:  # without credentials
        return endpoint_url(self.base_url)


def planned_checks(bench: Benchmark) -> list[Check]:
    """The (model, endpoint) pairs the run will call, each once, with the roles that share it."""
    c = bench.config
    wanted: list[tuple[str, str, str, str | None]] = []
    if c.model not in BUILTIN_AGENTS:
        wanted.append(("agent", "chat", c.model, c.base_url))
    if c.user_model != "scripted":
        wanted.append(("user", "chat", c.user_model, c.base_url))
    if c.judge_model != "rules":
        wanted.append(("judge", "chat", c.judge_model, c.base_url))
    wanted.extend(endpoint for spec in bench.memory_specs for endpoint in spec.endpoints(c))
    checks: dict[tuple[str, str, str], Check] = {}
    for role, kind, model, configured in wanted:
        for base_url in base_urls(configured):  # each replica of a model must answer
            check = checks.setdefault((kind, model, endpoint_url(base_url)), Check(kind, model, base_url))
            if role not in check.roles:
                check.roles.append(role)
    return list(checks.values())


def _client(bench: Benchmark, base_url: str | None) -> LLMClient:
    # One quick retry for a flaky connection, nothing cached (the point is to reach the server), no
    # breaker, and a ledger of its own so these pings do not show up as run usage.
    settings = bench.llm_settings.model_copy(update={
        "base_url": base_url, "max_retries": 1, "backoff_base_s": 0.5, "backoff_max_s": 1.0,
        "retry_after_max_s": 1.0, "cache_dir": None, "circuit_breaker": 0})
    return LLMClient(settings, Ledger())


def _failure(check: Check, exc: LLMError) -> str | None:
    """The message for a failed check, or ``None`` when the error still proves the endpoint answers."""
    text = str(exc)
    if exc.status in _ANSWERED and not (exc.status == 429 and "quota" in text.lower()):
        return None
    # LLMError reads "<role> LLM call to <host> (model m) failed after n attempt(s): <what>"; keep <what>.
    what = text.split(" attempt(s): ", 1)[-1]
    return f"{', '.join(check.roles)} model {check.model!r} at {check.url}: {what}"


def run_checks(bench: Benchmark) -> list[str]:
    """Make each planned check's request through the run's LLM client (with one quick retry).

    Returns:
        One message per failed check (empty when every endpoint answered), each naming the roles, the
        model, the URL without credentials and the server's message.
    """
    failures: list[str] = []
    for check in planned_checks(bench):
        try:
            with _client(bench, check.base_url) as client:
                if check.kind == "embeddings":
                    client.embed(check.roles[0], model=check.model, texts=["ping"])
                else:
                    client.complete(check.roles[0], model=check.model, max_tokens=1,
                                    messages=[{"role": "user", "content": "Reply with OK."}],
                                    extra_headers={PREFLIGHT_HEADER: "1"})
        except LLMError as exc:
            message = _failure(check, exc)
            if message is not None:
                if exc.status == 404:
                    hint = unknown_model_hint(bench.role_names())
                    message += f". {hint}" if hint else ""
                failures.append(message)
        except ValueError as exc:  # a missing key for a separate embeddings endpoint
            failures.append(f"{', '.join(check.roles)} model {check.model!r} at {check.url}: {exc}")
    if bench.config.judge_batch and bench.config.judge_model != "rules":
        failures += _batch_api_failures(bench)
    return failures


def _batch_api_failures(bench: Benchmark) -> list[str]:
    """``--vita-judge-args batch``: whether the judge's endpoint serves the Batch API (``GET /batches``), checked
    now rather than after every episode of the run has been paid for."""
    import openai

    url = endpoint_url(bench.config.base_url)
    try:
        with _client(bench, bench.config.base_url) as client:
            client.api().batches.list(limit=1)
    except openai.APIStatusError as exc:
        if exc.status_code in (404, 405):
            return [f"judge (--vita-judge-args batch) at {url}: the endpoint has no Batch API (HTTP "
                    f"{exc.status_code} on "
                    "GET /batches); judge without --vita-judge-args batch"]
        if exc.status_code in (401, 403):
            return [f"judge (--vita-judge-args batch) at {url}: the Batch API refused the key (HTTP {exc.status_code})"]
    except (openai.APIConnectionError, ValueError):
        pass  # the chat check above already reports an endpoint that cannot be reached
    return []


def start_checks(bench: Benchmark) -> Future[list[str]]:
    """:func:`run_checks` in a background thread, so its requests overlap collection and the xdist workers'
    start-up; the caller takes the result before the first item starts."""
    executor = ThreadPoolExecutor(1, thread_name_prefix="vita-preflight")
    try:
        return executor.submit(run_checks, bench)
    finally:
        executor.shutdown(wait=False)


def preflight_error(failures: list[str]) -> str:
    """The usage-error text for failed checks."""
    lines = ["pytest-vitabench: preflight failed, no item was run (one request per model and endpoint; "
             "--vita-preflight off skips it):"]
    lines.extend(f"  {message}" for message in failures)
    return "\n".join(lines)
