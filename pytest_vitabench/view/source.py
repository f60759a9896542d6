"""The only place the viewer, plots, comparison and failure analysis read a saved run.

A run is read through :func:`load_run`, which returns a :class:`Run` of the same shape as the run
directory reader planned for journals: ``.report`` holds the config, metrics and results *without*
trajectories, and ``.messages(nodeid)`` / ``.memory_snapshot(nodeid)`` return one item's trajectory and
memory text on demand. Today it reads ``vitabench-report/1`` files, where both are stored inline; swapping
in a journal reader changes this module only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..report.json_report import load_report

#: Per-item fields that are loaded lazily rather than kept in ``Run.report["results"]``.
HEAVY_FIELDS = ("messages", "memory_snapshot")


class Run:
    """A saved run.

    Attributes:
        path: The file (or run directory) it was read from.
        report: ``schema``, ``config``, ``metrics``, ``usage`` and ``results``; each result lacks the
            heavy fields (``messages``, ``memory_snapshot``).
    """

    def __init__(self, path: Path, report: dict[str, Any], heavy: dict[str, dict[str, Any]]):
        self.path = path
        self.report = report
        self._heavy = heavy

    @property
    def config(self) -> dict[str, Any]:
        return self.report.get("config") or {}

    @property
    def results(self) -> list[dict[str, Any]]:
        return self.report.get("results") or []

    def messages(self, nodeid: str) -> list[dict[str, Any]]:
        """The item's trajectory (JSON dicts: role, content, tool_calls, tool_call_id, name, error)."""
        return list(self._heavy.get(nodeid, {}).get("messages") or [])

    def memory_snapshot(self, nodeid: str) -> str:
        """The memory text the agent was given for this item ('' when none)."""
        return str(self._heavy.get(nodeid, {}).get("memory_snapshot") or "")

    def iter_items(self) -> Iterator[dict[str, Any]]:
        yield from self.results


def load_run(path: str | os.PathLike[str]) -> Run:
    """Open a saved run: a ``vitabench-report/1`` JSON file, or a directory holding ``report.json``.

    Args:
        path: The report file or run directory.

    Returns:
        The run.

    Raises:
        FileNotFoundError: If nothing is there.
        ValueError: If it is not a VitaBench report (or a directory without one).
    """
    p = Path(path)
    if p.is_dir():
        candidate = p / "report.json"
        if not candidate.is_file():
            raise ValueError(f"{p} is a directory without a report.json; pass the report file")
        p = candidate
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such file")
    document = load_report(p)
    results = document.get("results")
    if not isinstance(results, list) or not all(isinstance(r, dict) and "nodeid" in r for r in results):
        raise ValueError(f"{p}: 'results' must be a list of item records with a 'nodeid'")
    heavy: dict[str, dict[str, Any]] = {}
    light = []
    for record in results:
        heavy[record["nodeid"]] = {key: record.get(key) for key in HEAVY_FIELDS}
        light.append({k: v for k, v in record.items() if k not in HEAVY_FIELDS})
    document["results"] = light
    return Run(p, document, heavy)
