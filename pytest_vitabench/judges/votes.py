"""Majority voting over repeated judge runs (``--vita-judge-votes N``).

A single judge sample makes the binary all-rubrics reward sensitive to judge noise on any one rubric
(REFERENCE.md §7.2). With N votes each rubric is met when more than half of the votes say so; a tie counts as
unmet, so voting never makes a pass easier to get by luck. A vote in which the judge failed to return the
rubric (``judge_failure``) is left out of the count (``failures_unmet=False``, the default) or counts as
unmet (``failures_unmet=True``, ``--vita-judge-failures zero``); a rubric no vote returned stays a judge
failure.
"""

from __future__ import annotations

from .base import RubricVerdict


def vote_seeds(trial_seed: int, votes: int) -> list[int]:
    """Cache seeds of the votes: the trial seed itself for one vote (a plain run's cache entries), else
    ``trial_seed * 1000 + v`` so every vote is a distinct sample and repeated runs reuse the same ones."""
    if votes <= 1:
        return [trial_seed]
    return [trial_seed * 1000 + vote for vote in range(votes)]


def majority(runs: list[list[RubricVerdict]], *, failures_unmet: bool = False) -> list[RubricVerdict]:
    """Per-rubric majority of ``runs`` (one verdict list per vote, over the same rubrics in the same order).

    Raises:
        ValueError: No runs, or runs of different lengths.
    """
    if not runs:
        raise ValueError("majority() needs at least one run")
    if len({len(run) for run in runs}) != 1:
        raise ValueError("every vote must judge the same rubrics")
    if len(runs) == 1:
        return list(runs[0])
    out = []
    for column in zip(*runs, strict=True):
        yes = sum(1 for v in column if v.met is True)
        no = sum(1 for v in column if v.met is False)
        total = len(column) if failures_unmet else len(column) - sum(1 for v in column if v.judge_failure)
        if yes == 0 and no == 0:
            out.append(column[0].model_copy(update={"reason": f"no vote could judge it: {column[0].reason}"}))
            continue
        met = yes * 2 > total
        pick = next((v for v in column if v.met is met), column[0])
        tie = " (tie: unmet)" if yes * 2 == total else ""
        out.append(RubricVerdict(text=column[0].text, met=met, kind=column[0].kind,
                                 reason=f"{yes}/{total} votes met{tie}; {pick.reason}"))
    return out
