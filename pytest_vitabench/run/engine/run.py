"""One process's side of a run: each item runs inline or on the scheduler, is journaled as it lands, or is
taken from the journal of the run being resumed. Plain Python: the session hands in what only pytest knows
(which items come next, whether to stop) as functions. The engine tunes the garbage collector from its start to
its close (:mod:`..heap`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
from collections.abc import Callable, Iterable
from typing import Any

from ...llm.ledger import item_ledger
from ...result import ItemResult
from ...runs.records import journal_item, result_from_record
from ...runs.store import RunStore
from ...suite.loader import needs_validation
from ..episode import SyncCaller, ThreadedCaller, drive
from ..heap import FrozenValidation, freeze_long_lived
from ..runner import ItemJob, ItemRunner
from ..stopping import BUDGET, NotRun, StartGate, item_cost
from .scheduler import EpisodeScheduler


class RunEngine:
    """Runs, journals and resumes the items of one process.

    Args:
        store: The run directory, or ``None`` to journal nothing.
        config_sha256: The run's scoring configuration hash, written into each journal record.
        saved: Journal records of the run being resumed, by node id.
        concurrency: Episodes in flight in this process; 1 runs each item inline in pytest's thread.
        on_first_journal: Called once before the first record is written (writes the manifest).
        gate: Asked before each item starts (:mod:`..stopping`); an item it refuses raises :class:`NotRun`.
    """

    def __init__(self, *, runner: ItemRunner, store: RunStore | None, config_sha256: str,
                 saved: dict[str, dict[str, Any]] | None = None, concurrency: int = 1,
                 on_first_journal: Callable[[], None] | None = None, gate: StartGate | None = None):
        self.runner = runner
        self.gate = gate or StartGate()
        self.store = store
        self.config_sha256 = config_sha256
        self.saved = saved or {}
        self.concurrency = max(1, concurrency)
        self._on_first_journal = on_first_journal
        # Built when the first item starts: what is alive now lives until the end.
        freeze_long_lived()
        self._journal_started = False
        self._chain_locks: dict[Any, asyncio.Lock] = {}
        self._scheduler: EpisodeScheduler | None = None
        self._caller = ThreadedCaller()
        self._validate = FrozenValidation()
        self._validator = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="vita-validate")
        if self.concurrency > 1:
            runner.state.max_chains = max(runner.state.max_chains, 2 * self.concurrency + 8)

    def saved_result(self, nodeid: str, suite_sha256: str) -> ItemResult | None:
        """The item's result from the resumed run, if it finished there with the same suite file."""
        record = self.saved.get(nodeid)
        if record is None or record.get("suite_sha256") != suite_sha256:
            return None
        if record.get("config_sha256") not in (None, self.config_sha256):
            return None
        return result_from_record(record)

    def run(self, job: ItemJob) -> ItemResult:
        """Run one item inline.

        Raises:
            NotRun: The gate stopped the run from starting items.
        """
        reason = self.gate.admit()
        if reason is not None:  # WAIT too: nothing of this process is in flight between inline items
            raise self._not_run(reason or BUDGET)
        cost: float | None = None
        try:
            if needs_validation(job.user):
                self._validate(job.suite, job.user)
            with item_ledger() as usage, SyncCaller() as call:
                result = drive(self.runner.run_async(job, call=call))
            self._finished(job, result, usage.by_role())
            cost = item_cost(result.usage)
        finally:
            self.gate.finished(cost)
        return result

    async def _admitted(self, job: ItemJob) -> ItemResult:
        """Run one item the gate admitted (the scheduler asked it before starting), and tell the gate its cost."""
        cost: float | None = None
        try:
            result = await self.run_async(job)
            cost = item_cost(result.usage)
        finally:
            self.gate.finished(cost)
        return result

    async def run_async(self, job: ItemJob) -> ItemResult:
        """Run one item on the scheduler's loop and journal it the moment it finishes.

        Raises:
            SuiteError: The item's user has invalid data (not a result: nothing is journaled).
        """
        job.suite.kept_users = max(job.suite.kept_users, self.concurrency)
        if needs_validation(job.user):  # in a thread only then: the round trip is slow with many episodes
            await self._caller(self._validate, job.suite, job.user)
        if job.user.error is not None:
            raise job.user.error
        key = self.runner.chain_key(job.suite, job.user, job.memory, job.trial)
        lock = self._chain_locks.setdefault(key, asyncio.Lock())
        with item_ledger() as usage:
            result = await self.runner.run_async(job, call=self._caller, chain_lock=lock)
        await asyncio.to_thread(self._finished, job, result, usage.by_role())
        return result

    def _not_run(self, reason: str) -> NotRun:
        """The error of an item the gate kept from starting; the run directory gets its manifest even when no
        item ran, so that ``--vita-resume`` finds the run."""
        self._start_journal()
        return NotRun(reason)

    def _start_journal(self) -> None:
        if self.store is not None and not self._journal_started:
            self._journal_started = True
            if self._on_first_journal is not None:
                self._on_first_journal()

    def _finished(self, job: ItemJob, result: ItemResult, usage_by_role: dict[str, Any]) -> None:
        for role, usage in usage_by_role.items():
            if usage.requests or usage.cached_requests:
                result.usage[role] = usage
        if self.store is not None:
            self._start_journal()
            journal_item(self.store, result, suite_sha256=job.suite.sha256, config_sha256=self.config_sha256)

    def scheduler(self, *, job_for: Callable[[str], ItemJob], upcoming: Callable[[str], Iterable[str]],
                  should_stop: Callable[[], bool]) -> EpisodeScheduler:
        """The process's scheduler (created on first use with these callbacks); it starts an item only when
        ``should_stop`` is false and the gate admits it, and an item it never started raises :class:`NotRun`."""
        if self._scheduler is None:
            self._scheduler = EpisodeScheduler(
                concurrency=self.concurrency, make=lambda nodeid: self._admitted(job_for(nodeid)),
                upcoming=lambda nodeid: (n for n in upcoming(nodeid) if n not in self.saved),
                should_stop=should_stop, prepare=lambda nodeid: self._validate_ahead(job_for(nodeid)),
                admit=self.gate.admit, not_started=lambda reason: self._not_run(reason or BUDGET))
        return self._scheduler

    def _validate_ahead(self, job: ItemJob) -> None:
        """Validate the user of an item about to start, so that its first item need not wait for it: in a
        thread of its own, one user at a time, so that validations do not crowd the episodes out of the
        interpreter (the item finds the verdict)."""
        if needs_validation(job.user):
            self._validator.submit(self._validate, job.suite, job.user)

    def close(self) -> None:
        """Cancel what is still in flight, flush the journal, and keep the collector off what the run built."""
        if self._scheduler is not None:
            self._scheduler.close()
        self._validator.shutdown(wait=False, cancel_futures=True)
        if self.store is not None:
            self.store.close()
        # What the run built is exempt from the collections pytest makes as it unconfigures: cycles made
        # during the run are then no longer searched for finalizers' unraisable exceptions.
        gc.freeze()
