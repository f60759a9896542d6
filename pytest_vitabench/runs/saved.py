"""The only place the viewer, plots, comparison and failure analysis read a saved run.

A run is read through :func:`load_run`, a thin layer over :func:`pytest_vitabench.runs.open_run`:
``.report`` holds the config, metrics and results *without* trajectories, and ``.messages(nodeid)`` /
``.memory_snapshot(nodeid)`` return one item's trajectory and memory text on demand, from the report itself
(schema /1) or from the run directory it points to (schema /2).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class Run:
    """A saved run, as the viewer, plots and comparison read it.

    Attributes:
        path: The file (or run directory) it was read from.
        report: ``schema``, ``config``, ``metrics``, ``usage``, ``run`` and ``results``; each result lacks the
            heavy fields (``messages``, ``memory_snapshot``), which :meth:`messages` and
            :meth:`memory_snapshot` load on demand.
    """

    def __init__(self, path: Path, report: dict[str, Any], source: Any):
        self.path = path
        self.report = report
        self._source = source

    @property
    def config(self) -> dict[str, Any]:
        return self.report.get("config") or {}

    @property
    def results(self) -> list[dict[str, Any]]:
        return self.report.get("results") or []

    def messages(self, nodeid: str) -> list[dict[str, Any]]:
        """The item's trajectory (JSON dicts: role, content, tool_calls, tool_call_id, name, error)."""
        try:
            return self._source.messages(nodeid)
        except KeyError:
            return []

    def memory_snapshot(self, nodeid: str) -> str:
        """The memory text the agent was given for this item ('' when none)."""
        try:
            return self._source.memory_snapshot(nodeid)
        except KeyError:
            return ""

    def iter_items(self) -> Iterator[dict[str, Any]]:
        yield from self.results


def load_run(path: str | os.PathLike[str]) -> Run:
    """Open a saved run: a report (``vitabench-report/1`` with trajectories inline, or ``/2`` pointing to its
    run directory), a run directory under ``.vitabench/runs/``, or a directory holding ``report.json``.

    Args:
        path: The report file or run directory.

    Returns:
        The run.

    Raises:
        FileNotFoundError: If nothing is there.
        ValueError: If it is not a VitaBench report or run directory.
    """
    from .reader import open_run

    p = Path(path)
    if p.is_dir() and (p / "report.json").is_file():
        p = p / "report.json"
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such file")
    source = open_run(p)
    document = source.report
    results = document.get("results")
    if not isinstance(results, list) or not all(isinstance(r, dict) and "nodeid" in r for r in results):
        raise ValueError(f"{p}: 'results' must be a list of item records with a 'nodeid'")
    return Run(p, document, source)
