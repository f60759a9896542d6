"""What the plugin adds at the end of a run beyond the metrics: the failure table and the comparison with
a baseline run. The plugin calls :func:`analyse_session` once on the controller and prints :func:`summary_lines`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..result import ItemResult
from .compare import Comparison, compare_results, regression_gate, regression_list, render_comparison
from .failures import SubtaskFacts, categorize, failure_table, render_failure_table, subtask_facts


@dataclass
class SessionAnalysis:
    """The failure table, the comparison and the gate's verdict of one run (``regression``: why the gate failed
    it; ``regressions``: the regressed subtasks as plain lines for a CI step summary)."""

    failures: dict[str, Any] | None = None
    comparison: Comparison | None = None
    comparison_error: str | None = None
    regression: str | None = None
    regressions: list[str] = field(default_factory=list)
    baseline_path: str | None = None


def analyse_failures(results: Sequence[ItemResult],
                     subtask_data: Callable[[ItemResult], dict[str, Any] | None]) -> dict[str, Any]:
    """:func:`~pytest_vitabench.report.failures.failure_table` of the run's failed and errored items;
    ``subtask_data`` gives an item's subtask as an official-shape dict (or ``None``)."""
    cache: dict[tuple[str, str, str], SubtaskFacts] = {}
    rows = []
    for r in results:
        if r.outcome not in ("failed", "error"):
            continue
        # Decided on the worker, next to the trajectory, when it ran there (the controller has none).
        category = r.failure_category
        if not category:
            key = (r.suite, r.user_id, r.subtask_id)
            if key not in cache:
                cache[key] = subtask_facts(subtask_data(r))
            category = _categorize(r, cache[key])
        if category:
            rows.append((r.nodeid, category, r.domain, r.memory))
    return failure_table(rows)


def analyse_session(results: Sequence[ItemResult], config: dict[str, Any], *, want_failures: bool,
                    subtask_data: Callable[[ItemResult], dict[str, Any] | None], baseline: str | None = None,
                    max_drop: float | None = None, seed: int = 0,
                    ignored_settings: Collection[str] = ()) -> SessionAnalysis:
    """Everything the plugin reports beyond the metrics: the failure table, the comparison with the saved
    ``baseline`` run and the regression gate (``max_drop`` of Avg allowed; ``None``: no gate)."""
    analysis = SessionAnalysis(baseline_path=baseline)
    if want_failures:
        analysis.failures = analyse_failures(results, subtask_data)
    if baseline:
        from ..runs.reader import load_run

        try:
            base = load_run(baseline)
            current = [r.model_dump(mode="json", exclude={"messages", "memory_snapshot"}) for r in results]
            analysis.comparison = compare_results(base.results, current, base_config=base.config,
                                                  new_config=config, seed=seed, ignored_settings=ignored_settings)
        except (OSError, ValueError) as exc:
            analysis.comparison_error = f"cannot compare with the baseline {baseline}: {exc}"
            if max_drop is not None:
                analysis.regression = analysis.comparison_error
            return analysis
        analysis.regressions = regression_list(analysis.comparison)
        if max_drop is not None:
            analysis.regression = regression_gate(analysis.comparison, max_drop)
    return analysis


def summary_lines(analysis: SessionAnalysis, *, show_failures: bool) -> list[str]:
    """The terminal lines: the failure table (when asked for) and the comparison with the baseline."""
    lines: list[str] = []
    if show_failures and analysis.failures is not None:
        lines += ["", *render_failure_table(analysis.failures)]
    if analysis.comparison_error:
        lines += ["", analysis.comparison_error]
    elif analysis.comparison is not None:
        lines += ["", *render_comparison(analysis.comparison, base_label=analysis.baseline_path or "baseline",
                                         new_label="this run", limit=10)]
    return lines


def failure_category(result: ItemResult, subtask: Any) -> str | None:
    """The failure category of a finished item, from its own trajectory and its subtask's suite data."""
    if result.outcome not in ("failed", "error"):
        return None
    return _categorize(result, subtask_facts(subtask_data_of(subtask)))


def _categorize(result: ItemResult, facts: SubtaskFacts) -> str | None:
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
