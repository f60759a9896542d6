"""Whether the run may start one more item: the one place that stops a run from starting items.

Each process asks :meth:`StartGate.admit` before it starts an item (inline or on the scheduler). The gate asks
its rules in order; the first one that gives a reason (``"budget"``, and later ``"decided"`` for early
stopping) closes it for good, and every item not started yet becomes "not run" with that reason (:class:`NotRun`):
no result, nothing journaled, so ``--vita-resume`` runs it. Items already in flight finish.

A rule is any ``() -> str | None``; the cap may also answer :data:`WAIT` (not yet), which closes nothing. The spend
cap (:class:`Budget`) is always the last rule: when it lets an item start it books it as in flight, so the rules
before it must not close the gate after it booked.

The spend cap is run-wide: every process of the run (the controller without xdist, else each worker) books its
spend and its items in flight in one small JSON file in the run's shared state directory (the one the rate
limiters use), read and written under a file lock, so two workers never both take the last dollar.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..store.lock import FileLock

#: The reason of the items the spend cap left out.
BUDGET = "budget"
#: The reason of the items left out once early stopping knew the gate's verdict (``--vita-early-stop``).
DECIDED = "decided"
#: Not yet: the cap holds the item back until an item this process has in flight ends and tells its cost.
WAIT = ""
#: The shared state directory's files: each process's spend, and the estimate of each suite file.
SPEND_FILE = "spend.json"
ESTIMATE_FILE = "estimate.json"
#: Written by the controller once early stopping decided the gate (:mod:`.early_stopping`).
DECIDED_FILE = "decided.json"

Rule = Callable[[], "str | None"]


def decided_rule(state_dir: str | Path) -> Rule:
    """The rule of ``--vita-early-stop``: closed once the controller has written its decision, which every
    process of the run reads in the shared state directory."""
    flag = Path(state_dir) / DECIDED_FILE
    return lambda: DECIDED if flag.exists() else None


class NotRun(Exception):
    """The item was never started: the run stopped starting items for ``reason``."""

    def __init__(self, reason: str):
        super().__init__(f"not run: {reason}")
        self.reason = reason


class StartGate:
    """Whether an item may start, from its rules (see the module): closed for good once a rule gives a reason."""

    def __init__(self, rules: Sequence[Rule] = (), *, budget: Budget | None = None):
        self.rules = list(rules)
        self.budget = budget
        self._reason: str | None = None
        self._lock = threading.Lock()

    def add_rule(self, rule: Rule) -> None:
        """Stop starting items once ``rule`` gives a reason: early stopping's ``"decided"`` plugs in here, e.g.
        ``gate.add_rule(lambda: "decided" if decide(done(), pending()) else None)``. Asked before the cap."""
        with self._lock:
            self.rules.append(rule)

    @property
    def reason(self) -> str | None:
        """Why the gate is closed (``None``: open)."""
        return self._reason

    def admit(self) -> str | None:
        """``None`` when the item may start (it is then booked in flight), :data:`WAIT` when it may not start
        yet, else the reason it may not."""
        with self._lock:
            if self._reason is None:
                for rule in [*self.rules, *([self.budget.admit] if self.budget is not None else [])]:
                    reason = rule()
                    if reason == WAIT:
                        return WAIT
                    if reason is not None:
                        self._reason = reason
                        break
            return self._reason

    def finished(self, cost: float | None) -> None:
        """An admitted item ended: ``cost`` in USD, or ``None`` when it gave no result (it costs nothing known)."""
        if self.budget is not None:
            self.budget.finished(cost)


class Budget:
    """``--vita-budget-usd``: admits an item while the money spent plus what the items in flight (this one
    included) are expected to cost stays within the cap. Past it, the item waits while this process has items
    in flight (each one that ends turns a guess into a cost), and is refused once it has none.

    The expected cost of an item is the mean cost of the run's finished items (every process's, and those of the
    run being resumed); before any finished, ``estimate_per_item()`` (``vitabench estimate``'s figure per item).

    Args:
        cap: The cap in USD.
        state_dir: The directory every process of the run shares.
        writer: This process's name (``main``, ``gw0``...).
        resumed: The spend and the items of the run being resumed (each process reads the same journal, so
            it is counted once here, not in the file).
        estimate_per_item: What an item is expected to cost before any finished (called once, when needed).
    """

    def __init__(self, cap: float, *, state_dir: str | Path, writer: str, resumed: tuple[float, int] = (0.0, 0),
                 estimate_per_item: Callable[[], float] = lambda: 0.0):
        self.cap = cap
        self.path = Path(state_dir) / SPEND_FILE
        self.writer = writer
        self.resumed = resumed
        self._estimate = estimate_per_item
        self._estimate_value: float | None = None

    def admit(self) -> str | None:
        with self._shared() as books:
            spent, finished, in_flight = self._totals(books)
            expected = spent / finished if finished else self.estimate()
            mine = books.setdefault(self.writer, _empty())
            if spent + (in_flight + 1) * expected > self.cap + 1e-12:
                # While this process has items in flight, their costs are still guesses (the estimate's, at
                # first): wait for one to end rather than stop at a guess. Never for another process's items,
                # which a dead worker would leave booked for ever.
                return WAIT if mine["in_flight"] else BUDGET
            mine["in_flight"] += 1
        return None

    def finished(self, cost: float | None) -> None:
        with self._shared() as books:
            mine = books.setdefault(self.writer, _empty())
            mine["in_flight"] = max(0, mine["in_flight"] - 1)
            if cost is not None:
                mine["spent"] += cost
                mine["finished"] += 1

    def spent(self) -> float:
        """USD spent so far by the whole run (the resumed part included)."""
        with self._shared(write=False) as books:
            return self._totals(books)[0]

    def estimate(self) -> float:
        if self._estimate_value is None:
            self._estimate_value = max(0.0, float(self._estimate()))
        return self._estimate_value

    def _totals(self, books: Mapping[str, Mapping[str, Any]]) -> tuple[float, int, int]:
        spent, finished = self.resumed
        in_flight = 0
        for entry in books.values():
            spent += float(entry.get("spent", 0.0))
            finished += int(entry.get("finished", 0))
            in_flight += int(entry.get("in_flight", 0))
        return spent, finished, in_flight

    def _shared(self, *, write: bool = True) -> _Books:
        return shared_json(self.path, write=write)


def _empty() -> dict[str, Any]:
    return {"spent": 0.0, "finished": 0, "in_flight": 0}


def shared_json(path: Path, *, write: bool = True) -> _Books:
    """A small JSON object in a file the run's processes share, read and (``write``) rewritten under its lock
    (a ``with`` block: the lock is held for the whole block)."""
    return _Books(path, write=write)


class _Books:
    """A shared JSON file, read and (``write``) rewritten under its lock."""

    def __init__(self, path: Path, *, write: bool):
        self.path, self.write = path, write
        self._lock = FileLock(path.with_suffix(".lock"))
        self._books: dict[str, Any] = {}

    def __enter__(self) -> dict[str, Any]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock.acquire()
        try:
            self._books = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self._books = {}
        return self._books

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            if self.write and exc_type is None:
                self.path.write_text(json.dumps(self._books), encoding="utf-8")
        finally:
            self._lock.release()


def item_cost(usage: Mapping[str, Any]) -> float:
    """USD of one item from its per-role usage (objects or the journal's dicts)."""
    total = 0.0
    for entry in usage.values():
        total += float(entry.get("cost", 0.0) if isinstance(entry, Mapping) else getattr(entry, "cost", 0.0))
    return total


def resumed_spend(records: Iterable[Mapping[str, Any]]) -> tuple[float, int]:
    """The spend and the count of the finished items of the run being resumed (their journal records)."""
    records = list(records)
    return sum(item_cost(record.get("usage") or {}) for record in records), len(records)


def unpriced_models(models: Iterable[tuple[str, str]], priced: Callable[[str], bool]) -> list[str]:
    """``option model`` of each model a role calls that has no price, for the refusal of an unpriced cap."""
    return [f"{option} {model}" for option, model in models if not priced(model)]
