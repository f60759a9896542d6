"""``--vita-early-stop`` in a run: the decision after each result, and the flag that closes every process's
start gate once the gate's verdict is known.

The controller (the only process that sees every result) asks :meth:`EarlyStopping.after` after each one. Once
decided, it writes a flag file in the run's shared state directory; each process's start gate
(:mod:`.stopping`) reads it before an item starts, so the items not started yet become "not run: decided".
The verdict is the decision's, never the partial run's figures (:func:`~pytest_vitabench.report.outcome.gate_run`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..options.fail_under import parse_fail_under
from ..options.values import parse_early_stop
from ..report.early_stop import Decision, Gates, Pending, exact_decision
from ..report.selection import unit_and_trial
from ..result import ItemResult
from .schedule import user_order
from .stopping import DECIDED_FILE


class EarlyStopping:
    """One run's early stopping, in the controller.

    Args:
        spec: ``--vita-early-stop``'s value (``exact`` or ``alpha=A``).
        gates: The run's gates, as the decision reads them.
        state_dir: The directory every process of the run shares.
        pending_of: The :class:`~pytest_vitabench.report.early_stop.Pending` item of each selected node id.
    """

    def __init__(self, spec: str, gates: Gates, *, state_dir: str | Path,
                 pending_of: Callable[[Sequence[str]], dict[str, Pending]]):
        self.mode = parse_early_stop(spec)
        self.gates = gates
        self.flag = Path(state_dir) / DECIDED_FILE
        self._pending_of = pending_of
        self._pending: dict[str, Pending] | None = None
        self._statistical: Any = None
        self._checked_at = -1
        self._next_check = 0.0
        #: The decision, once the verdict is known.
        self.decision: Decision | None = None
        #: Why early stopping gave up (a selected item it cannot place), said once; it then decides nothing.
        self.off: str | None = None

    def after(self, arrived: Mapping[str, tuple[ItemResult, Any]], selected: Sequence[str],
              not_run: Iterable[str]) -> Decision | None:
        """The decision after one more result (``arrived``: the results so far by node id; ``None`` while no
        item is selected or between checks). Once decided, the flag closes every process's start gate.

        A check scores the run twice, so on a large run one is made every 1% of its items at most, and never
        sooner than nine times its own duration after the last: checks take at most a tenth of the run.
        """
        if self.decision is not None or self.off is not None:
            return self.decision
        if self._pending is None:
            if not selected:
                return None
            self._pending = self._pending_of(selected)
            unplaced = [nodeid for nodeid in selected if nodeid not in self._pending and "[" in nodeid]
            if unplaced:
                self.off = (f"early stopping is off: {len(unplaced)} selected item(s) it cannot place in their "
                            f"suite (e.g. {unplaced[0]}); the run goes on to its end")
                return None
        every = max(1, len(self._pending) // 100)
        if self._checked_at >= 0 and (len(arrived) - self._checked_at < every or time.monotonic() < self._next_check):
            return None
        started = time.monotonic()
        self._checked_at = len(arrived)
        finished = set(arrived) | set(not_run)
        pending = [p for nodeid, p in self._pending.items() if nodeid not in finished]
        decision = self._decide([result for result, _ in arrived.values()], pending)
        self._next_check = time.monotonic() + 9 * (time.monotonic() - started)
        if decision.decided and pending:
            self.decision = decision
            self.flag.parent.mkdir(parents=True, exist_ok=True)
            self.flag.write_text(json.dumps({"reason": decision.reason}), encoding="utf-8")
        return decision

    def _decide(self, done: Sequence[ItemResult], pending: Sequence[Pending]) -> Decision:
        if self.mode.kind == "exact":
            return exact_decision(done, pending, self.gates)
        if self._statistical is None:
            from ..report.sequential import StatisticalStop

            users = sorted({(p.suite, p.user_id) for p in (self._pending or {}).values()})
            self._statistical = StatisticalStop(self.gates, alpha=float(self.mode.alpha or 0.05),
                                                order=user_order(users, self.gates.seed))
        decision: Decision = self._statistical.decide(done, pending)
        return decision


def gates_of(config: Any, *, selected_k: int | None) -> Gates:
    """The gates of a run's configuration (``--vita-fail-under``, ``--vita-fail-regression``)."""
    baseline: tuple[Mapping[str, Any], ...] | None = None
    baseline_config: Mapping[str, Any] = {}
    baseline_error = None
    if config.fail_regression is not None and config.baseline:
        from ..runs.reader import load_run

        try:
            run = load_run(config.baseline)
            baseline, baseline_config = tuple(run.results), run.config
        except (OSError, ValueError) as exc:
            baseline_error = f"cannot compare with the baseline {config.baseline}: {exc}"
    return Gates(trials=config.trials, seed=config.seed, style=config.metrics_style, selected_k=selected_k,
                 thresholds=tuple(parse_fail_under(config.fail_under)) if config.fail_under else None,
                 baseline=baseline, baseline_config=baseline_config, baseline_error=baseline_error,
                 fail_regression=config.fail_regression)


def parse_item_id(nodeid: str) -> tuple[str, str, str, str, int] | None:
    """``(file, user, subtask, memory, trial)`` of an item's node id, or ``None`` for another test."""
    parsed = unit_and_trial(nodeid)
    if parsed is None:
        return None
    unit, trial = parsed
    path_user_subtask, _, memory = unit[:-1].rpartition("[")
    file, user, subtask = path_user_subtask.split("::")
    return file, user, subtask, memory, trial
