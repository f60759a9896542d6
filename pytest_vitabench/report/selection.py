"""What a session selected (after ``-k``, ``-m``, node ids, ``--lf``, ``--deselect`` and a shard), read from the
items' node ids: the metrics' k is the fewest trials selected for any unit, and the selected items without a
result are the run's unfinished ones.

A unit is one (suite file, user, subtask, memory backend); an item's node id names it and its trial:
``suite.json::USER::SUBTASK[MEMORY-tN]``. The policy (``docs/statistics.md``, "Selections"): trials nobody
selected are not part of the measurement; selected trials that did not finish count as the metrics style says
(by default a short unit scores 0; ``--vita-deviation metrics=...`` may pad with 0.0 rewards) and are named.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..result import ItemResult

#: An item's node id: the unit before the brackets' trial, the trial after ``-t``.
_ITEM_ID = re.compile(r"^(?P<file>[^:]+\.json(?:\.gz)?)::(?P<user>[^:]+)::(?P<subtask>[^\[]+)"
                      r"\[(?P<memory>.+)-t(?P<trial>\d+)\]$")
#: Unfinished items named on the terminal; the report lists them all.
SHOWN = 5


def unit_and_trial(nodeid: str) -> tuple[str, int] | None:
    """``(unit, trial)`` of an item's node id (the unit is the id without its trial), or ``None`` for a test that
    is no VitaBench item."""
    match = _ITEM_ID.match(nodeid)
    if match is None:
        return None
    return f"{match['file']}::{match['user']}::{match['subtask']}[{match['memory']}]", int(match["trial"])


@dataclass(frozen=True)
class Selection:
    """The VitaBench items a session selected, by node id."""

    nodeids: tuple[str, ...]
    _units: dict[str, set[int]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def units(self) -> dict[str, set[int]]:
        """Unit -> the trials selected of it."""
        if not self._units and self.nodeids:
            units: dict[str, set[int]] = defaultdict(set)
            for nodeid in self.nodeids:
                parsed = unit_and_trial(nodeid)
                if parsed is not None:
                    units[parsed[0]].add(parsed[1])
            self._units.update(units)
        return self._units

    @property
    def k(self) -> int | None:
        """The fewest trials selected for any unit (``None`` without items): every unit has at least k."""
        return min((len(trials) for trials in self.units.values()), default=None)

    def unfinished(self, results: Sequence[ItemResult]) -> list[str]:
        """The selected items without a result (stopped by ``-x``/``--maxfail``, interrupted), in node-id order."""
        done = {r.nodeid for r in results}
        return sorted(n for n in self.nodeids if n not in done and unit_and_trial(n) is not None)


def selection_of(nodeids: Iterable[str]) -> Selection:
    """The VitaBench items among ``nodeids`` (other tests of the session are left out)."""
    return Selection(tuple(sorted({n for n in nodeids if unit_and_trial(n) is not None})))


def metrics_k(selected_k: int | None, trials: int) -> int:
    """The metrics' k: the trials selected per unit, never more than ``trials`` (the whole run when the session
    selected nothing it knows of, e.g. a report read back without its selection)."""
    return min(trials, selected_k) if selected_k else trials


def unfinished_line(unfinished: Sequence[str], *, k: int, style: str, padded: bool) -> str:
    """The terminal's line naming the selected items that have no result, and how they count (``padded``: the
    metrics style counts each missing trial as a 0.0 reward)."""
    shown = ", ".join(unfinished[:SHOWN]) + (f", ... and {len(unfinished) - SHOWN} more" if len(unfinished) > SHOWN
                                             else "")
    counts = (f"each counts as a 0.0 reward (metrics style {style})" if padded
              else f"a unit left with fewer than k={k} trials scores 0 (n_short)")
    return f"not finished: {len(unfinished)} selected item(s) have no result ({shown}); {counts}"
