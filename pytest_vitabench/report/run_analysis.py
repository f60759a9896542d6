"""The failure category of an item (on the worker that ran it, or on the controller from the suite's data),
and the suite hashes of a run (:mod:`.outcome` builds the run's failure table from them)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..result import ItemResult
from .failures import SubtaskFacts, categorize, subtask_facts


def failure_category(result: ItemResult, subtask: Any) -> str | None:
    """The failure category of a finished item, from its own trajectory and its subtask's suite data."""
    if result.outcome not in ("failed", "error"):
        return None
    return categorize_result(result, subtask_facts(subtask_data_of(subtask)))


def categorize_result(result: ItemResult, facts: SubtaskFacts) -> str | None:
    messages = [m.model_dump(mode="json") for m in result.messages]
    return categorize(result.model_dump(mode="json", exclude={"messages", "memory_snapshot"}), messages,
                      result.memory_snapshot, facts)


def subtask_data_of(subtask: Any) -> dict[str, Any]:
    """The fields of a :class:`~pytest_vitabench.suite.schema.SubTask` that failure analysis reads, as the
    official-shape dict :func:`~pytest_vitabench.report.failures.subtask_facts` takes."""
    return {"skill_tested": subtask.skill_tested, "target_product_ids": subtask.target_product_ids,
            "environment": subtask.environment,
            "rubric_checks": [c.model_dump(mode="json") for c in subtask.rubric_checks or []],
            "evaluation_criteria": (subtask.evaluation_criteria.model_dump(mode="json")
                                    if subtask.evaluation_criteria else None),
            "user_scenario": ({"personalized_preference_memory": subtask.groundtruth_preferences()}
                              if subtask.user_scenario else None)}


def suite_subtask_data(load_suite: Callable[[str], Any]) -> Callable[[ItemResult], dict[str, Any] | None]:
    """An item -> its subtask's suite data (the fields failure analysis reads), from the run's loaded suites."""
    index: dict[str, dict[tuple[str, str], Any]] = {}

    def lookup(result: ItemResult) -> dict[str, Any] | None:
        if result.suite not in index:
            try:
                suite = load_suite(result.suite)
            except Exception:  # the suite is gone or broken: classify without its facts
                index[result.suite] = {}
            else:
                index[result.suite] = {(u.task.user_id, s.subtask_id): s for u in suite.users if u.task
                                       for s in u.task.subtasks}
        subtask = index[result.suite].get((result.user_id, result.subtask_id))
        return None if subtask is None else subtask_data_of(subtask)

    return lookup


def complete_suite_hashes(known: dict[str, str], results: Sequence[ItemResult]) -> dict[str, str]:
    """Suite path -> sha256 for every suite the results came from.

    Under xdist only workers collect, so the controller has not hashed any suite; the viewer and the
    comparison need the paths (for names) and the hashes (to tell changed suites apart).
    """
    out = dict(known)
    for path in sorted({r.suite for r in results if r.suite} - set(known)):
        try:
            out[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            continue
    return dict(sorted(out.items()))
