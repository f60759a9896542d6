"""The JSON report: build it (schema ``vitabench-report/2``) and write it atomically (:func:`load_report`, from
:mod:`pytest_vitabench.runs.reader`, reads it back).

A /2 result may leave its trajectory and memory snapshot in the run directory (``messages_sha256``,
``snapshot_sha256``); :func:`pytest_vitabench.runs.open_run` reads either schema and fetches them lazily.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ..result import ItemResult
from ..runs.reader import SCHEMA_V2 as SCHEMA
from ..runs.reader import load_report as load_report
from ..store.atomic_file import write_atomic


def build_report(config: dict[str, Any], metrics: dict[str, Any], results: list[ItemResult],
                 run: dict[str, Any] | None = None, records: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The report document.

    Args:
        config: The run's ``config`` block, stored as given.
        metrics: The output of :func:`pytest_vitabench.metrics.compute_metrics`.
        results: Every item's result, sorted by node id so that the report does not depend on the order
            xdist delivered them in; trajectories stay out when the run directory holds them.
        run: The run metadata block (:func:`pytest_vitabench.runs.session.run_metadata`).
        records: The results as JSON (:meth:`ItemResult.light`) in the order of ``results``, as they arrived
            from the processes that ran them: the report takes them as they are rather than serialise again.

    Returns:
        ``{"schema": "vitabench-report/2", "config": ..., "run": ..., "metrics": ..., "results": [...]}``, and
        ``judge`` (:func:`~pytest_vitabench.report.agreement.judge_summary`) when an LLM judge judged machine-checked
        rubrics.
    """
    from .agreement import judge_summary

    pairs = sorted(zip(results, records or [r.light() for r in results], strict=True),
                   key=lambda pair: (pair[0].nodeid, pair[0].memory, pair[0].trial))
    ordered = [result for result, _ in pairs]
    out = {
        "schema": SCHEMA,
        "config": config,
        "run": run or {},
        "metrics": metrics,
        "results": [record for _, record in pairs],
    }
    judge = judge_summary(ordered, seed=int(config.get("seed") or 0))
    if judge is not None:  # an LLM judge on machine-checked rubrics: how often it agreed with the rules judge
        out["judge"] = judge
    return out


def _finite(value: Any) -> Any:
    """A copy with NaN and infinities replaced by None, which strict JSON cannot hold."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def write_report(path: str | os.PathLike[str], report: dict[str, Any]) -> Path:
    """Write a report atomically (parent directories created) and return its path.

    NaN or infinite numbers (a provider reporting a bogus cost) are written as ``null``, not invalid JSON.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        text = json.dumps(report, indent=1, ensure_ascii=False, allow_nan=False)
    except ValueError:
        # Only walk the (large) document when it actually holds a non-finite number.
        text = json.dumps(_finite(report), indent=1, ensure_ascii=False, allow_nan=False)
    write_atomic(target, (text + "\n").encode("utf-8"), durable=True)
    return target
