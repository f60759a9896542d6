"""Judging many cases through a Batch API (``--vita-judge-args batch``): the unchanged judge, replayed by rounds.

A judge's calls depend on each other (window states carried forward, repair requests), so they cannot all be
known up front. Instead the judge runs on every case with its client answering from the batches
(:mod:`pytest_vitabench.llm.deferred`): a call whose answer is not in yet queues its request and stops that
case's pass; the queued requests of all cases go out as one batch, and every open case then runs again from
the start. Because each pass is the judge's own code reading the same completions, a batch verdict equals
the synchronous one; only a case's last, complete pass is counted in the ledger, at the batch price.

In a pytest run (:class:`BatchJudge`) a round goes out once no new request has been queued for ``linger_s``.
Every batch is journaled (:class:`~pytest_vitabench.llm.batch.BatchJournal`) before the first wait, so a new
run resumes the open batches instead of submitting them again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..llm.batch import BatchUnsupported
from ..llm.deferred import AnswerPending, DeferredAnswers
from ..llm.prices import batch_rate
from ..messages import Usage
from .base import Judge, JudgeCase, Verdict

if TYPE_CHECKING:
    from ..llm.batch import BatchSubmitter
    from ..llm.client import LLMClient

#: The roles a judge's calls are made under.
JUDGE_ROLES = frozenset({"judge"})


@dataclass
class BatchedVerdict:
    """One case's verdict (``None`` with the infrastructure ``error`` when judging failed), its usage at the
    batch price, and the batches whose answers it rests on."""

    verdict: Verdict | None
    error: BaseException | None = None
    usage: Usage = field(default_factory=Usage)
    batch_ids: list[str] = field(default_factory=list)


@dataclass
class BatchRun:
    """What :func:`judge_in_batches` did: the outcomes in case order, the rounds and the batches."""

    outcomes: list[BatchedVerdict]
    rounds: int = 0
    submitted: list[str] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)


def judge_in_batches(cases: Sequence[JudgeCase], judge: Judge, *, client: LLMClient, submitter: BatchSubmitter,
                     on_round: Callable[[int, int], None] | None = None) -> BatchRun:
    """Judge ``cases`` with ``judge``, its calls through ``client`` answered by the batches ``submitter`` sends
    and journals; ``on_round`` is called before each round with its number and the requests it needs.

    Raises:
        BatchUnsupported: The endpoint has no Batch API.
        LLMError: A batch failed as a whole or did not finish in time (it stays journaled for a resume).
    """
    deferred = DeferredAnswers(roles=JUDGE_ROLES)
    deferred.add_answers(submitter.journal.answers())
    outcomes: dict[int, BatchedVerdict] = {}
    run = BatchRun(outcomes=[])
    with client.deferring(deferred):
        while True:
            for index, case in enumerate(cases):
                if index not in outcomes:
                    outcome = _one_pass(judge, case, client, deferred)
                    if outcome is not None:
                        outcomes[index] = outcome
            if len(outcomes) == len(cases):
                break
            if not deferred.pending:  # pragma: no cover - a pending pass always queues its request
                raise RuntimeError("batch judging stalled: cases wait but no request is queued")
            run.rounds += 1
            if on_round is not None:
                on_round(run.rounds, len(deferred.pending))
            _answer_pending(deferred, submitter, run)
    run.outcomes = [outcomes[i] for i in range(len(cases))]
    return run


def _one_pass(judge: Judge, case: JudgeCase, client: LLMClient, deferred: DeferredAnswers) -> BatchedVerdict | None:
    """Run the judge once on ``case``: its outcome, or ``None`` when a call's answer is still to come."""
    try:
        verdict = judge.judge(case)
    except AnswerPending:
        deferred.take_pass()  # replayed in a later round: nothing of this pass is counted
        return None
    except Exception as exc:  # an infrastructure failure of the judge: the caller reports it, never a verdict
        deferred.take_pass()
        return BatchedVerdict(verdict=None, error=exc)
    calls, batch_ids = deferred.take_pass()
    total = Usage()
    for role, usage, model, priced in calls:
        billed = usage.model_copy(update={"cost": usage.cost * batch_rate(client.settings.prices, model)})
        client.ledger.record(role, billed, model=model, priced=priced)
        total = total + billed
    return BatchedVerdict(verdict=verdict, usage=total, batch_ids=batch_ids)


def _answer_pending(deferred: DeferredAnswers, submitter: BatchSubmitter, run: BatchRun) -> None:
    """Answers for every queued request: from journaled batches still open that carry them, then from one
    new batch of the rest."""
    journal = submitter.journal
    for batch_id, entry in journal.submitted().items():
        keys = entry["keys"]
        if entry["downloaded"] or not set(keys) & deferred.waiting().keys():
            continue
        run.resumed.append(batch_id)
        deferred.add_answers(submitter.wait(batch_id, keys), keys)
    requests = deferred.waiting()  # what other threads queue from now on goes with the next round
    if requests:
        batch_id = submitter.submit(requests)
        run.submitted.append(batch_id)
        deferred.add_answers(submitter.wait(batch_id, list(requests)), requests)


class BatchJudge:
    """The judge of a pytest run with ``--vita-judge-args batch``: ``inner``'s calls answered through batches.

    ``judge`` is a coroutine, awaited on the scheduler's loop (:class:`~pytest_vitabench.run.episode.ThreadedCaller`):
    an item waiting for its verdict holds no thread, only its place among the episodes in flight. From now on
    ``client``'s judge calls are deferred to the batches.
    """

    def __init__(self, inner: Judge, *, client: LLMClient, submitter: BatchSubmitter, linger_s: float = 2.0):
        self.inner = inner
        self.client = client
        self.submitter = submitter
        self.linger_s = linger_s
        self.name = getattr(inner, "name", "judge")
        self.deferred = DeferredAnswers(roles=JUDGE_ROLES)
        self.deferred.add_answers(submitter.journal.answers())
        client.defer(self.deferred)
        self.run = BatchRun(outcomes=[])
        self._round = 0
        self._waiters = 0
        self._queued_at = time.monotonic()
        self._queued = 0
        self._flushing: asyncio.Task[Any] | None = None
        self._round_done: asyncio.Event | None = None
        self._unsupported: BaseException | None = None

    def __repr__(self) -> str:
        return f"BatchJudge({self.inner!r}, rounds={self.run.rounds})"

    async def judge(self, case: JudgeCase) -> Verdict:
        """The verdict of ``case``, once the batches have answered every call it needs.

        Raises:
            LLMError: A request the batch could not answer, a failed batch, or no Batch API (an
                infrastructure error of the item, never a verdict).
        """
        while True:
            seen = self._round
            outcome = await asyncio.to_thread(_one_pass, self.inner, case, self.client, self.deferred)
            if outcome is not None:
                if outcome.verdict is None:
                    raise outcome.error or RuntimeError("batch judging gave no verdict")
                details = {**outcome.verdict.details, "judged_in_batch": outcome.batch_ids}
                return outcome.verdict.model_copy(update={"details": details})
            await self._next_round(seen)

    async def _next_round(self, seen: int) -> None:
        """Wait until a round after ``seen`` has been answered (starting the flusher if none runs)."""
        if self._unsupported is not None:
            raise self._unsupported
        if len(self.deferred.pending) != self._queued:  # new requests: the linger starts again
            self._queued, self._queued_at = len(self.deferred.pending), time.monotonic()
        if self._flushing is None or self._flushing.done():
            # nobody waits while no flusher runs, so the event can be new (and on this loop: an item run
            # inline gets a loop of its own)
            self._round_done = asyncio.Event()
            self._flushing = asyncio.get_running_loop().create_task(self._flush_when_quiet())
        self._waiters += 1
        try:
            while self._round == seen:
                done = self._round_done
                assert done is not None
                await done.wait()
                if self._flushing is not None and self._flushing.done() and self._flushing.exception() is not None:
                    raise self._flushing.exception()  # type: ignore[misc]
        finally:
            self._waiters -= 1

    async def _flush_when_quiet(self) -> None:
        """Send a round once the queue has been still for ``linger_s``, until nobody waits."""
        while self._waiters or self.deferred.pending:
            if len(self.deferred.pending) != self._queued:
                self._queued, self._queued_at = len(self.deferred.pending), time.monotonic()
            quiet = time.monotonic() - self._queued_at
            if quiet < self.linger_s or not self.deferred.pending:
                await asyncio.sleep(max(0.01, self.linger_s - quiet))
                if not self._waiters and not self.deferred.pending:
                    return
                continue
            self.run.rounds += 1
            try:
                await asyncio.to_thread(_answer_pending, self.deferred, self.submitter, self.run)
            except BatchUnsupported as exc:
                self._unsupported = exc  # every later item fails at once, without another upload
                raise
            finally:
                self._round += 1
                self._queued = len(self.deferred.pending)
                assert self._round_done is not None
                self._round_done.set()
                self._round_done = asyncio.Event()
