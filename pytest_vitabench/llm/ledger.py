"""The usage ledger: tokens, requests, cache hits, retries and cost per LLM role.

One ledger per process collects every call an :class:`~pytest_vitabench.llm.client.LLMClient` makes; an
xdist worker ships ``to_dict()`` to the controller, which ``merge``s them. A model without a price is
recorded in ``unpriced`` so the report can say "cost unknown" instead of a silent $0.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from ..messages import Usage

#: Display order of the roles; other role names follow alphabetically.
ROLES = ("agent", "user", "judge", "memory", "embeddings")


#: The ledger of the item being run in this context: items run concurrently, and a context variable follows
#: each item's calls into the threads that ``asyncio.to_thread`` starts.
_ITEM_LEDGER: ContextVar[Ledger | None] = ContextVar("vita_item_ledger", default=None)


@contextlib.contextmanager
def item_ledger() -> Iterator[Ledger]:
    """Also record every call made in this context (and threads started from it) in a fresh ledger."""
    ledger = Ledger()
    token = _ITEM_LEDGER.set(ledger)
    try:
        yield ledger
    finally:
        _ITEM_LEDGER.reset(token)


class Ledger:
    """Thread-safe accumulator of :class:`~pytest_vitabench.messages.Usage` per role."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage: dict[str, Usage] = {}
        self._retries: dict[str, int] = {}
        self._errors: dict[str, int] = {}
        #: Endpoint URL -> [answered requests, failed attempts]; kept only for a model with several base URLs.
        self._endpoints: dict[str, list[int]] = {}
        self.unpriced: set[str] = set()

    def record(self, role: str, usage: Usage, *, model: str | None = None, priced: bool = True) -> None:
        """Add one call's usage (``priced=False``: ``model`` had no price, so its cost is unknown)."""
        with self._lock:
            self._usage[role] = self._usage.get(role, Usage()) + usage
            if not priced and model and usage.requests:
                self.unpriced.add(model)
        item = _ITEM_LEDGER.get()
        if item is not None and item is not self:
            item.record(role, usage, model=model, priced=priced)

    def note_retry(self, role: str) -> None:
        with self._lock:
            self._retries[role] = self._retries.get(role, 0) + 1

    def note_error(self, role: str) -> None:
        """A call that failed for good (after its retries)."""
        with self._lock:
            self._errors[role] = self._errors.get(role, 0) + 1

    def note_endpoint(self, url: str, *, failed: bool = False) -> None:
        """One request answered by (or one attempt failed at) ``url``, one of several base URLs."""
        with self._lock:
            counts = self._endpoints.setdefault(url, [0, 0])
            counts[1 if failed else 0] += 1

    def endpoints(self) -> dict[str, dict[str, int]]:
        """``{url: {"requests": answered, "failed_attempts": n}}`` (empty with a single base URL)."""
        with self._lock:
            return {url: {"requests": n, "failed_attempts": f} for url, (n, f) in sorted(self._endpoints.items())}

    def by_role(self) -> dict[str, Usage]:
        with self._lock:
            return {role: self._usage[role] for role in sorted(self._usage, key=_role_order)}

    def total(self) -> Usage:
        return sum(self.by_role().values(), Usage())

    def retries(self, role: str) -> int:
        with self._lock:
            return self._retries.get(role, 0)

    def errors(self, role: str) -> int:
        with self._lock:
            return self._errors.get(role, 0)

    def snapshot(self) -> dict[str, Usage]:
        """The usage so far, to subtract later with :meth:`since` (per-item usage on a worker)."""
        return self.by_role()

    def since(self, snapshot: Mapping[str, Usage]) -> dict[str, Usage]:
        """Usage per role added after ``snapshot`` was taken; roles with nothing new are left out."""
        out: dict[str, Usage] = {}
        for role, now in self.by_role().items():
            before = snapshot.get(role, Usage())
            delta = Usage(**{name: getattr(now, name) - getattr(before, name) for name in Usage.model_fields})
            if delta != Usage():
                out[role] = delta
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"roles": {role: usage + retries + errors}, "total": ..., "unpriced_models": [...]}``."""
        with self._lock:
            roles = sorted(set(self._usage) | set(self._retries) | set(self._errors), key=_role_order)
            out = {
                role: {**self._usage.get(role, Usage()).model_dump(), "retries": self._retries.get(role, 0),
                       "errors": self._errors.get(role, 0)}
                for role in roles
            }
            unpriced = sorted(self.unpriced)
        data = {"roles": out, "total": self.total().model_dump(), "unpriced_models": unpriced}
        endpoints = self.endpoints()
        if endpoints:
            data["endpoints"] = endpoints
        return data

    def merge(self, data: Mapping[str, Any]) -> None:
        """Add another ledger's ``to_dict()`` (e.g. from an xdist worker) into this one."""
        for role, entry in (data.get("roles") or {}).items():
            fields = {name: entry[name] for name in Usage.model_fields if name in entry}
            with self._lock:
                self._usage[role] = self._usage.get(role, Usage()) + Usage(**fields)
                self._retries[role] = self._retries.get(role, 0) + int(entry.get("retries", 0))
                self._errors[role] = self._errors.get(role, 0) + int(entry.get("errors", 0))
        with self._lock:
            self.unpriced.update(data.get("unpriced_models") or [])
            for url, entry in (data.get("endpoints") or {}).items():
                counts = self._endpoints.setdefault(url, [0, 0])
                counts[0] += int(entry.get("requests", 0))
                counts[1] += int(entry.get("failed_attempts", 0))

    def table_lines(self) -> list[str]:
        """A plain-text table for the terminal summary (no colours); empty when no call was made."""
        data = self.to_dict()
        if not data["roles"]:
            return []
        # "cached": answers from our disk cache; "prompt cached": served from the provider's prompt cache.
        rows = [["role", "requests", "cached", "retries", "errors", "prompt", "prompt cached", "completion",
                 "reasoning", "cost $"]]
        roles = data["roles"]
        total = {**data["total"], "retries": sum(u["retries"] for u in roles.values()),
                 "errors": sum(u["errors"] for u in roles.values())}
        for name, u in [*roles.items(), ("total", total)]:
            rows.append([name, f"{u['requests']:,}", f"{u['cached_requests']:,}", f"{u['retries']:,}",
                         f"{u['errors']:,}", f"{u['prompt_tokens']:,}",
                         _cached_cell(u['cached_prompt_tokens'], u['prompt_tokens']), f"{u['completion_tokens']:,}",
                         f"{u['reasoning_tokens']:,}", f"{u['cost']:.4f}"])
        lines = align(rows, 1)
        if self.unpriced:
            lines.append(f"cost unknown (no price) for: {', '.join(sorted(self.unpriced))}; set --vita-prices")
        endpoints = self.endpoints()
        if endpoints:
            lines.append("requests per endpoint: " + ", ".join(
                f"{url} {e['requests']:,}" + (f" ({e['failed_attempts']:,} failed attempts)" if e["failed_attempts"]
                                              else "") for url, e in endpoints.items()))
        return lines


def align(rows: list[list[str]], text_columns: int) -> list[str]:
    """The rows as aligned lines: the first ``text_columns`` (names) left-aligned, numbers right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i < text_columns else c.rjust(w)
                      for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]


def _cached_cell(cached: int, prompt: int) -> str:
    """``812,004 (76%)``: the cached prompt tokens and their share of the prompt tokens."""
    return f"{cached:,} ({cached / prompt:.0%})" if prompt else f"{cached:,}"


def _role_order(role: str) -> tuple[int, str]:
    return (ROLES.index(role), "") if role in ROLES else (len(ROLES), role)
