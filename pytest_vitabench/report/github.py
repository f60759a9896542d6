"""GitHub Actions output: a markdown job summary (``$GITHUB_STEP_SUMMARY``) and ``::error`` annotations.

Pure functions of the run's metrics, results and gate outcome; the plugin decides when to call them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..metrics import LEVELS
from .terminal import fixed, items_line, metrics_header, metrics_row, no_measurement

if TYPE_CHECKING:
    from ..result import ItemResult
    from .thresholds import ThresholdOutcome

#: Subtasks listed under "worst subtasks".
WORST = 10
_STATUS = {"met": "met", "missed": "**missed**", "not_checked": "not checked"}


def _cell(text: object) -> str:
    """A markdown table cell: pipes and newlines would break the row."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _markdown_row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _metrics_table(metrics: Mapping[str, Any]) -> list[str]:
    """The terminal's metrics table (subtask and user levels) as markdown."""
    ks = {m["k"] for m in metrics.values()}
    header = metrics_header(next(iter(ks)) if len(ks) == 1 else None)
    rows = [metrics_row(memory, level, metrics[memory][level], metrics[memory]["k"])
            for memory in sorted(metrics) for level in LEVELS]
    return [_markdown_row(header), "|" + "---|" * len(header), *map(_markdown_row, rows)]


def _thresholds_table(outcomes: Sequence[ThresholdOutcome]) -> list[str]:
    lines = ["| threshold | memory | value | status |", "|---|---|---|---|"]
    for o in outcomes:
        value = fixed(o.value)
        status = _STATUS.get(o.status, o.status)
        if o.status != "met":
            status += f": {_cell(o.message)}"
        lines.append(f"| `{_cell(o.threshold)}` | {_cell(o.memory or '-')} | {value} | {status} |")
    return lines


def _regressions(regressions: Sequence[str | Mapping[str, Any]]) -> list[str]:
    """Strings become a list; mappings (one per regression) become a table with their keys as columns."""
    rows = [r for r in regressions if isinstance(r, Mapping)]
    lines = [f"- {_cell(r)}" for r in regressions if not isinstance(r, Mapping)]
    if rows:
        columns = list(dict.fromkeys(key for row in rows for key in row))
        lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += [_markdown_row([row.get(c, "") for c in columns]) for row in rows]
    return lines


def worst_subtasks(results: Sequence[ItemResult], n: int = WORST) -> list[dict[str, Any]]:
    """The ``n`` (memory, user, subtask) units with the lowest mean reward, most errors first on ties; each
    with its most frequent unmet rubric (or first error) as ``unmet``."""
    units: dict[tuple[str, str, str], list[ItemResult]] = defaultdict(list)
    for r in results:
        if r.outcome != "skipped":
            units[(r.memory, r.user_id, r.subtask_id)].append(r)
    rows: list[dict[str, Any]] = []
    for (memory, user_id, subtask_id), items in units.items():
        unmet: dict[str, int] = defaultdict(int)
        for r in items:
            for v in r.rubrics:
                if v.met is False:
                    unmet[v.text] += 1
        errors = [r.error for r in items if r.outcome == "error" and r.error]
        reason = max(unmet, key=lambda text: (unmet[text], text)) if unmet else (errors[0] if errors else "")
        rows.append({"memory": memory, "user_id": user_id, "subtask_id": subtask_id, "domain": items[0].domain,
                     "mean_reward": sum(r.reward for r in items) / len(items),
                     "passed": sum(r.outcome == "passed" for r in items), "trials": len(items),
                     "errors": len(errors), "unmet": reason})
    rows.sort(key=lambda row: (row["mean_reward"], -row["errors"], row["memory"], row["user_id"],
                               row["subtask_id"]))
    return [row for row in rows[:n] if row["mean_reward"] < 1.0]


def step_summary(metrics: Mapping[str, Any], results: Sequence[ItemResult], *, title: str = "VitaBench results",
                 config: Mapping[str, Any] | None = None, thresholds: Sequence[ThresholdOutcome] | None = None,
                 regressions: Sequence[str | Mapping[str, Any]] | None = None, verdict: str | None = None,
                 worst: int = WORST) -> str:
    """The markdown job summary of a run.

    Args:
        config: The run's model settings, shown in one line.
        thresholds: The ``--vita-fail-under`` outcomes, when thresholds were given.
        regressions: Regressions against a baseline, when one was given: sentences, or one mapping per
            regression (its keys become the table's columns).
        verdict: The exit-status line (see :func:`pytest_vitabench.report.outcome.explain`).
    """
    lines = [f"## {title}", ""]
    if verdict:
        lines += [f"**{_cell(verdict)}**", ""]
    if config:
        shown = ", ".join(f"{key} `{_cell(config[key])}`" for key in ("model", "user_model", "judge_model", "trials")
                          if key in config)
        if shown:
            lines += [shown, ""]
    unmeasured = no_measurement(results)
    lines += [unmeasured] if unmeasured else _metrics_table(metrics) if metrics else ["No results."]
    lines += ["", items_line(results), ""]
    if thresholds:
        lines += ["### Thresholds", "", *_thresholds_table(thresholds), ""]
    if regressions is not None:
        lines += ["### Regressions against the baseline", ""]
        lines += _regressions(regressions) if regressions else ["None."]
        lines.append("")
    rows = worst_subtasks(results, worst)
    if rows:
        lines += [f"### Worst subtasks (lowest mean reward, up to {worst})", "",
                  "| memory | user | subtask | domain | reward | passed | errors | most often unmet |",
                  "|---|---|---|---|---|---|---|---|"]
        for row in rows:
            lines.append(f"| {_cell(row['memory'])} | {_cell(row['user_id'])} | {_cell(row['subtask_id'])} | "
                         f"{row['domain']} | {row['mean_reward']:.3f} | {row['passed']}/{row['trials']} | "
                         f"{row['errors']} | {_cell(row['unmet'])[:200]} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def write_step_summary(path: str | Path, markdown: str) -> None:
    """Append ``markdown`` to the job summary file (several steps may write to it)."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(markdown)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def error_annotation(message: str, *, title: str = "VitaBench threshold missed") -> str:
    """One ``::error`` workflow command (escaped as GitHub's runner expects)."""
    return f"::error title={_escape_property(title)}::{_escape_data(message)}"


def error_annotations(missed_thresholds: Sequence[str], gate_failures: Sequence[str] = (),
                      infrastructure_errors: int = 0) -> list[str]:
    """The ``::error`` lines of a gated run: one per missed threshold and failed gate, one for errors."""
    lines = [error_annotation(m) for m in missed_thresholds]
    lines += [error_annotation(m, title="VitaBench gate failed") for m in gate_failures]
    if infrastructure_errors:
        lines.append(error_annotation(f"{infrastructure_errors} item(s) ended in an infrastructure error; the "
                                      "scores are incomplete", title="VitaBench infrastructure errors"))
    return lines
