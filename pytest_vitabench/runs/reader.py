"""Read a run back: :func:`open_run` takes a JSON report (schema ``vitabench-report/1`` or ``/2``) or a run
directory (finished or not) and gives one :class:`Run` (usage in docs/looking-at-a-run.md).

``Run.report`` has the schema /2 shape in every case, its results without trajectories and snapshots,
which are read on demand: opening a 10,000-item run does not hold 10,000 trajectories in memory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..suite.errors import json_problem
from .records import result_of
from .session import SUMMARY
from .store import RunStore

SCHEMA_V1 = "vitabench-report/1"
SCHEMA_V2 = "vitabench-report/2"
_HEAVY = ("messages", "memory_snapshot")


class Run:
    """A run opened by :func:`open_run`; ``store`` holds its trajectories and snapshots, when it is present."""

    def __init__(self, report: dict[str, Any], *, source: Path, store: RunStore | None,
                 inline: dict[str, dict[str, Any]] | None = None, more_stores: tuple[RunStore, ...] = ()):
        self.report = report
        self.source = source
        self.store = store
        #: A merged run's other run directories (one per shard), searched for trajectories after ``store``.
        self.more_stores = more_stores
        self._inline = inline or {}
        self._by_id = {row["nodeid"]: row for row in report.get("results", [])}

    @property
    def path(self) -> Path:
        """The report file or run directory the run was read from."""
        return self.source

    @property
    def config(self) -> dict[str, Any]:
        return self.report.get("config") or {}

    @property
    def results(self) -> list[dict[str, Any]]:
        return list(self.report.get("results", []))

    def result(self, nodeid: str) -> dict[str, Any]:
        """The summary of one item (:class:`KeyError`: no such item)."""
        return self._by_id[nodeid]

    def messages(self, nodeid: str) -> list[dict[str, Any]]:
        """The item's trajectory (message dicts as in a /1 report); ``[]`` if it was not stored."""
        value = self._heavy(nodeid, "messages", "messages_sha256")
        return list(value) if isinstance(value, list) else []

    def memory_snapshot(self, nodeid: str) -> str:
        """The memory text the agent was given for the item; ``""`` if it was not stored."""
        value = self._heavy(nodeid, "memory_snapshot", "snapshot_sha256")
        return value if isinstance(value, str) else ""

    def full_result(self, nodeid: str) -> dict[str, Any]:
        """The item's summary with its trajectory and snapshot attached (a /1 report's result record)."""
        return {**self.result(nodeid), "messages": self.messages(nodeid),
                "memory_snapshot": self.memory_snapshot(nodeid)}

    def _heavy(self, nodeid: str, field: str, ref: str) -> Any:
        row = self.result(nodeid)
        inline = self._inline.get(nodeid, {})
        if field in inline:
            return inline[field]
        digest = row.get(ref)
        if not digest:
            return None
        for store in (self.store, *self.more_stores):
            if store is None:
                continue
            try:
                return store.get_blob(digest)
            except (OSError, ValueError):
                continue
        return None


def open_run(path: str | os.PathLike[str]) -> Run:
    """Open a JSON report (schema /1 or /2) or a run directory.

    Raises:
        FileNotFoundError: Nothing at ``path``.
        ValueError: Not a VitaBench report or run directory.
    """
    source = Path(path)
    if source.is_dir():
        return _open_run_dir(source)
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such report or run directory")
    data = load_report(source)
    results = data.get("results")
    if results is None:
        results = []
    if not isinstance(results, list) or not all(isinstance(r, dict) and "nodeid" in r for r in results):
        raise ValueError(f"{source}: 'results' must be a list of item records with a 'nodeid'")
    inline: dict[str, dict[str, Any]] = {}
    rows = []
    for row in results:
        heavy = {key: row[key] for key in _HEAVY if key in row}
        if heavy:
            inline[row["nodeid"]] = heavy
        rows.append({key: value for key, value in row.items() if key not in _HEAVY})
    report = {**data, "schema": SCHEMA_V2, "results": rows}
    report.setdefault("run", {})
    stores = _stores_of(report, source)
    return Run(report, source=source, store=stores[0] if stores else None, inline=inline,
               more_stores=tuple(stores[1:]))


def load_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A JSON report as it was written (schema /1 or /2, trajectories inline or not).

    Raises:
        FileNotFoundError: If the file does not exist.
        ValueError: If the file is not JSON or is not a ``vitabench-report/1`` or ``/2`` document.
    """
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source} is not valid JSON: {json_problem(exc)}") from exc
    except UnicodeDecodeError as exc:
        raise ValueError(f"{source} is not a JSON file: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema") not in (SCHEMA_V1, SCHEMA_V2):
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{source} is not a VitaBench report (schema {found!r}; expected {SCHEMA_V1!r} or "
                         f"{SCHEMA_V2!r})")
    return data


def load_run(path: str | os.PathLike[str]) -> Run:
    """:func:`open_run`, where a directory holding a ``report.json`` means that report (the viewer, plots and
    comparison take a run's folder or its report alike)."""
    source = Path(path)
    if (source / "report.json").is_file():
        source = source / "report.json"
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file")
    return open_run(source)


def _stores_of(report: dict[str, Any], source: Path) -> list[RunStore]:
    """The run directories a /2 report points to (``dir``, or a merged run's ``dirs``, one per shard): as
    recorded, else a path relative to the report (a run copied with its directories beside it)."""
    run = report.get("run") or {}
    directories = [run["dir"]] if run.get("dir") else list(run.get("dirs") or [])
    out = []
    for directory in directories:
        for candidate in (Path(directory), source.parent / directory, source.parent / Path(directory).name):
            if candidate.is_dir():
                out.append(RunStore(candidate))
                break
    return out


def _open_run_dir(path: Path) -> Run:
    store = RunStore(path)
    manifest = store.manifest()
    if manifest is None:
        if any(path.glob("shard-*-of-*/manifest.json")):
            raise ValueError(f"{path} holds the shards of a run (--vita-shard), not one run directory: join them "
                             f"with `vitabench merge {path} -o run.json` and open run.json")
        raise ValueError(f"{path} is not a VitaBench run directory (no readable manifest.json)")
    from ..metrics import compute_metrics

    records = store.finished()
    rows = [{k: v for k, v in records[nodeid].items() if k not in ("suite_sha256", "config_sha256")}
            for nodeid in sorted(records)]
    config = manifest.get("config") or {}
    results = [result_of(row) for row in rows]
    # The k the run's own table had: the trials its last session selected per unit (a directory from before
    # that was recorded: the fewest trials any unit has).
    selected = ((store.read_json(SUMMARY) or {}).get("run") or {}).get("trials_selected") \
        or (manifest.get("selection") or {}).get("trials_selected")
    k = int(selected) if selected else None
    metrics = compute_metrics(results, k=k, trials=k, seed=int(config.get("seed", 0)),
                              style=str(config.get("metrics_style") or "default")) if results else {}
    planned = (manifest.get("selection") or {}).get("planned")
    run_meta = {"id": store.run_id, "dir": str(path.resolve()), "started": manifest.get("created"),
                "plugin_version": manifest.get("plugin_version"), "python": manifest.get("python"),
                "command": manifest.get("command"), "completed": len(rows), "planned": planned,
                "partial": planned is None or len(rows) < planned}
    report = {"schema": SCHEMA_V2, "config": {**config, "suites": manifest.get("suites", {})}, "run": run_meta,
              "metrics": metrics, "results": rows}
    return Run(report, source=path, store=store)
