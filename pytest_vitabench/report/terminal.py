"""The terminal summary: one compact table of the metrics and a few lines of run facts, as plain strings.

The metrics table's columns are declared here once; the GitHub job summary renders the same rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..formulas import METRICS
from ..llm.ledger import align
from ..memory.registry import pivot_key
from ..messages import Usage
from ..metrics import PAIRED_REFERENCES
from ..result import ROLES, ItemResult


def fixed(value: float | None) -> str:
    """A figure as the tables show it: three decimals, ``-`` for none."""
    return "-" if value is None else f"{value:.3f}"


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def with_interval(value: float | None, ci: Sequence[float | None] | None,
                  shown: Callable[[float], str] = fixed) -> str:
    """A figure with its 95% interval, e.g. ``0.312 [0.250, 0.380]`` (the figure alone without an interval)."""
    if value is None:
        return "-"
    if not ci or ci[0] is None or ci[1] is None:
        return shown(value)
    return f"{shown(value)} [{shown(ci[0])}, {shown(ci[1])}]"


def _cell(level: Mapping[str, Any], key: str) -> str:
    return with_interval(level.get(key), (level.get("ci95") or {}).get(key))


#: The metric columns of both tables, in display order: every metric :data:`~pytest_vitabench.formulas.METRICS`
#: declares, so a new metric shows up here with no change.
METRIC_COLUMNS = METRICS
#: The count columns after the metrics: ``(header, key of a metrics level)``; a new one is one line here.
COUNT_COLUMNS = (("units", "n_units"), ("errors", "n_errors"))
#: Shown after :data:`COUNT_COLUMNS` when the judge failed to return some verdict.
UNSCORED_COLUMN = ("unscored", "n_unscored")



def _counts(unscored: bool) -> tuple[tuple[str, str], ...]:
    return (*COUNT_COLUMNS, *([UNSCORED_COLUMN] if unscored else []))


def metrics_header(k: int | None, unscored: bool = False) -> list[str]:
    """The metrics table's header at ``k`` (``None``: backends ran with different k)."""
    label = "k" if k is None else str(k)
    return ["memory", "level", *(metric.header(label) for metric in METRIC_COLUMNS),
            *(header for header, _ in _counts(unscored))]


def metrics_row(memory: str, label: str, level: Mapping[str, Any], k: int, unscored: bool = False) -> list[str]:
    """One row of the metrics table: a level of :func:`~pytest_vitabench.metrics.compute_metrics`'s output."""
    return [memory, label, *(_cell(level, metric.key(k)) for metric in METRIC_COLUMNS),
            *(str(level.get(key, 0)) for _, key in _counts(unscored))]


def _usage_line(results: Sequence[ItemResult]) -> str | None:
    totals: dict[str, Usage] = {}
    for r in results:
        for role, usage in r.usage.items():
            totals[role] = totals[role] + usage if role in totals else usage
    parts = []
    for role in [*[r for r in ROLES if r in totals], *sorted(set(totals) - set(ROLES))]:
        u = totals[role]
        if not (u.prompt_tokens or u.completion_tokens or u.cost or u.requests):
            continue
        text = f"{role} {u.prompt_tokens:,} in"
        if u.cached_prompt_tokens:
            text += f" ({u.cached_prompt_tokens:,} cached)"
        text += f" + {u.completion_tokens:,} out tokens"
        if u.reasoning_tokens:
            text += f" ({u.reasoning_tokens:,} reasoning)"
        text += f", ${u.cost:.4f}"
        parts.append(text)
    if not parts:
        return None
    total_cost = sum(u.cost for u in totals.values())
    return f"usage: {'; '.join(parts)} (total ${total_cost:.4f})"


def _paired_cell(entry: dict[str, Any] | None) -> str:
    return with_interval(entry["mean"], entry.get("ci95"), _signed) if entry else "-"


def render_pivot(metrics: dict[str, Any]) -> list[str]:
    """The backend comparison (no lines for fewer than two backends): one row per backend at the subtask
    level, and the per-user paired difference of Avg@k against the references that ran."""
    if len(metrics) < 2:
        return []
    memories = sorted(metrics, key=pivot_key)  # from the floor to the ceiling, then the others by name
    references = [r for r in PAIRED_REFERENCES if r in metrics]
    ks = {metrics[m]["k"] for m in memories}
    k_label = str(next(iter(ks))) if len(ks) == 1 else "k"
    header = ["memory", *(metric.header(k_label) for metric in METRIC_COLUMNS),
              *(["users"] if references else []), *(f"vs {r}" for r in references)]
    rows = [header]
    for memory in memories:
        m = metrics[memory]
        level = m["subtask"]
        cells = [fixed(level.get(metric.key(m["k"]))) for metric in METRIC_COLUMNS]
        paired = m.get("paired") or {}
        n_users = max((e.get("n_users", 0) for e in paired.values()), default=None)
        users = [] if not references else ["-" if n_users is None else str(n_users)]
        rows.append([memory, *cells, *users, *(_paired_cell(paired.get(f"vs_{r}")) for r in references)])
    title = f"Memory backends (subtask level, k={k_label})"
    if references:
        title = (f"Memory backends (subtask level, k={k_label}; vs: paired per-user difference of Avg@{k_label}, "
                 "95% bootstrap interval over users)")
    return [title, *align(rows, 1)]


def no_measurement(results: Sequence[ItemResult]) -> str | None:
    """What the metrics table says instead of its rows when no item was scored and some failed for
    infrastructure reasons: their zeros measure no agent. ``None`` when something was measured."""
    errors = sum(1 for r in results if r.outcome == "error")
    if not errors or any(r.outcome in ("passed", "failed") for r in results):
        return None
    return (f"VitaBench metrics: no measurement (every item ended in an infrastructure error or unscored: "
            f"{errors} error(s); see the errors above)")


def render_table(metrics: dict[str, Any], results: list[ItemResult], *, trials: int | None = None) -> list[str]:
    """The terminal summary of a run, as lines without trailing newlines.

    When the judge failed to return some verdict, an ``unscored`` column counts the items left out of the
    metrics for it (the judge's failure, not the agent's). With ``trials`` (``--vita-trials``) above the k, the
    title says k is the trials selected per unit.
    """
    ks = {m["k"] for m in metrics.values()}
    k_shared = next(iter(ks)) if len(ks) == 1 else None
    failures = [(r, v) for r in results for v in r.rubrics if v.judge_failure]
    judge_failed = bool(failures)
    lines: list[str] = []
    unmeasured = no_measurement(results)
    if unmeasured:
        lines.append(unmeasured)
    elif metrics:
        title = "VitaBench metrics"
        title += f" (k={k_shared}" if k_shared is not None else " (k per backend: " + ", ".join(
            f"{name}={m['k']}" for name, m in sorted(metrics.items()))
        if k_shared is not None and trials is not None and k_shared < trials:
            title += f": {k_shared} of {trials} trials per unit selected"
        title += "; 95% intervals: bootstrap over users)"
        lines.append(title)
        rows = [metrics_header(k_shared, judge_failed)]
        memories = sorted(metrics)
        for level in ("subtask", "user"):
            for memory in memories:
                rows.append(metrics_row(memory, level, metrics[memory][level], metrics[memory]["k"], judge_failed))
        for breakdown, prefix in (("by_domain", "domain"), ("by_skill", "skill")):
            for memory in memories:
                m = metrics[memory]
                for name, sub in m["subtask"].get(breakdown, {}).items():
                    rows.append(metrics_row(memory, f"{prefix}={name}", sub, m["k"], judge_failed))
        lines.extend(align(rows, 2))
        short = {level: sum(m[level].get("n_short", 0) for m in metrics.values()) for level in ("subtask", "user")}
        if any(short.values()):
            k_text = "k" if k_shared is None else f"k={k_shared}"
            lines.append(f"note: {short['subtask']} subtask unit(s) and {short['user']} user unit(s) had fewer "
                         f"than {k_text} trials and score 0")
        pivot = render_pivot(metrics)
        if pivot:
            lines.append("")
            lines.extend(pivot)
    else:
        lines.append("VitaBench metrics: no results")

    lines.append(items_line(results))
    not_judged = [(r, v) for r in results for v in r.rubrics if v.met is None]
    n_items = len({r.nodeid for r, _ in not_judged})
    total = sum(len(r.rubrics) for r in results)
    lines.append(f"rubrics not judged: {len(not_judged)} of {total}"
                 + (f" (in {n_items} item{'s' if n_items != 1 else ''})" if not_judged else ""))
    if failures:
        unscored = sum(1 for r in results if r.unscored)
        failed_items = len({r.nodeid for r, _ in failures})
        lines.append(f"judge failures: {len(failures)} rubric(s) in {failed_items} item(s) the judge did not "
                     f"return a usable verdict for; {unscored} item(s) unscored (left out of the metrics)"
                     + ("" if unscored == failed_items else "; the others failed on another rubric or scored 0 "
                        "(--vita-deviation judge-failures=zero)"))
    judge = _judge_line(results)
    if judge:
        lines.append(judge)
    usage = _usage_line(results)
    if usage:
        lines.append(usage)
    return lines


def items_line(results: Sequence[ItemResult]) -> str:
    """``items: 3 passed, 1 failed, 0 error, 0 skipped``."""
    outcomes = Counter(r.outcome for r in results)
    return "items: " + ", ".join(f"{outcomes.get(o, 0)} {o}" for o in ("passed", "failed", "error", "skipped"))


def _judge_line(results: Sequence[ItemResult]) -> str | None:
    """How often the LLM judge agreed with the machine checks, when the results hold both (no interval: the
    report's ``judge`` block and ``vitabench judge-audit`` have them)."""
    from .agreement import judge_summary

    summary = judge_summary(results, bootstrap=0)
    if summary is None or not summary["n"]:
        return None
    return (f"judge vs machine checks: agreement {fixed(summary['agreement'])}, kappa {fixed(summary['kappa'])}, "
            f"false pass {fixed(summary['false_pass'])}, false fail {fixed(summary['false_fail'])} over "
            f"{summary['n']} rubrics "
            "(vitabench judge-audit for intervals, kinds and flip rate)")
