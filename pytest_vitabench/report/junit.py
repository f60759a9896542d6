"""JUnit XML properties: per item (``<testcase>``) and per run (``<testsuite>``), all strings or numbers.

CI dashboards read these without parsing the JSON report. An item's reward, memory, trial and domain are
not here: the plugin sets them itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..formulas import METRICS
from ..result import ItemResult


def item_properties(result: ItemResult) -> list[tuple[str, object]]:
    """The extra ``<property>`` pairs of one item."""
    usage = list(result.usage.values())
    return [
        ("vita_skills", ",".join(result.skills)),
        ("vita_steps", result.steps),
        ("vita_termination", result.termination),
        ("vita_prompt_tokens", sum(u.prompt_tokens for u in usage)),
        ("vita_cached_prompt_tokens", sum(u.cached_prompt_tokens for u in usage)),
        ("vita_completion_tokens", sum(u.completion_tokens for u in usage)),
        ("vita_cost_usd", round(sum(u.cost for u in usage), 6)),
    ]


def suite_properties(metrics: Mapping[str, Any]) -> Iterator[tuple[str, object]]:
    """``vita_<memory>_<metric>`` for each subtask-level metric, and ``..._ci95_low`` / ``..._ci95_high``
    when it has an interval, plus ``vita_<memory>_n_units`` and ``vita_<memory>_n_errors``."""
    for memory, levels in metrics.items():
        level = levels["subtask"]
        intervals = level.get("ci95") or {}
        for name in (metric.key(levels["k"]) for metric in METRICS):
            if name in level:
                yield f"vita_{memory}_{name}", level[name]
                ci = intervals.get(name)
                if ci and ci[0] is not None:
                    yield f"vita_{memory}_{name}_ci95_low", ci[0]
                    yield f"vita_{memory}_{name}_ci95_high", ci[1]
        for count in ("n_units", "n_errors"):
            if count in level:
                yield f"vita_{memory}_{count}", level[count]
