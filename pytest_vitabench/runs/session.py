"""The run directory of one pytest session: which one (new or resumed), its manifest, crashed items and
the report's run metadata. Plain values in, plain values out; the plugin supplies what pytest knows."""

from __future__ import annotations

import json
import platform
import re
from pathlib import Path
from typing import Any, Protocol

from ..result import ItemResult
from ..store.atomic_file import write_atomic
from ..version import __version__
from .manifest import (
    ResumeError,
    build_manifest,
    config_sha256,
    difference_lines,
    find_resumable,
    git_commit,
    nothing_to_resume,
    now_iso,
)
from .records import journal_item
from .store import RunStore, new_run_id, runs_root


class _Runner(Protocol):
    """What a crash report needs of the runner (typed here: importing the runner would make a circle)."""

    config: Any

    def suite(self, path: str, *, lazy: bool = False) -> Any: ...

#: ``path::user::subtask[memory-tN]``
_NODEID = re.compile(r"^(?P<path>[^:]+)::(?P<user>.+)::(?P<subtask>[^:\[]+)\[(?P<memory>.+)-t(?P<trial>\d+)\]$")


def is_item_id(nodeid: str) -> bool:
    """Whether ``nodeid`` has the shape of a VitaBench item's (``file::user::subtask[memory-tN]``)."""
    return _NODEID.match(nodeid) is not None


def open_run_store(*, rootdir: Path, config: dict[str, Any], resume: str | None, run_dir: str | None,
                   writer: str, named_dir: Path | None = None) -> tuple[RunStore, dict[str, dict[str, Any]]]:
    """The session's run directory and the records it resumes from.

    Args:
        rootdir: pytest's rootdir; runs live in ``<rootdir>/.vitabench/runs/``.
        config: The run's config block (:meth:`RunConfig.manifest`).
        resume: ``None``, ``latest`` or a run directory / id (``--vita-resume``).
        run_dir: The directory the xdist controller chose (on a worker), else ``None``.
        writer: This process's journal name.
        named_dir: The directory ``--vita-run-id`` or ``--vita-shard`` names (see :mod:`pytest_vitabench.run.shard`):
            used whether or not it exists; with ``--vita-resume`` its finished items are reused.

    Returns:
        ``(store, saved)``: ``saved`` maps node ids to the journal records an item may reuse (finished
        items only: an ``error`` outcome runs again).

    Raises:
        ResumeError: ``--vita-resume`` finds nothing to resume, or names a run that does not exist or has other
            settings, or the named directory holds a run with other settings.
    """
    store: RunStore | None = None
    if run_dir:
        store = RunStore(run_dir, writer=writer)
    elif named_dir is not None:
        store = RunStore(named_dir, writer=writer)
        check_same_config(store, config)
        if resume and store.manifest() is None:
            raise ResumeError(nothing_to_resume(runs_root(rootdir), named_dir))
    elif resume:
        store = RunStore(find_resumable(rootdir, resume, config).path, writer=writer)
    if store is None:
        store = RunStore(runs_root(rootdir) / new_run_id(), writer=writer)
    saved: dict[str, dict[str, Any]] = {}
    if resume:
        wanted = config_sha256(config)
        saved = {nodeid: record for nodeid, record in store.finished().items()
                 if record.get("outcome") != "error" and record.get("config_sha256") == wanted}
    return store, saved


def check_same_config(store: RunStore, config: dict[str, Any]) -> None:
    """Refuse to journal into a run directory that holds a run with other scoring settings.

    Raises:
        ResumeError: Listing the settings that differ.
    """
    manifest = store.manifest()
    if manifest is None or manifest.get("config_sha256") == config_sha256(config):
        return
    lines = "\n".join(f"  {line}" for line in difference_lines(manifest.get("config") or {}, config))
    raise ResumeError(f"the run directory {store.path} holds a run with other settings:\n{lines}\n"
                      "Give another --vita-run-id, or the same settings.")


def write_manifest_once(store: RunStore, *, config: dict[str, Any], suites: dict[str, str],
                        selection: dict[str, Any], command: list[str]) -> None:
    """Write the manifest unless the run (a resumed one, or another xdist worker) already has one."""
    if store.manifest() is None:
        store.write_manifest(build_manifest(run_id=store.run_id, config=config, suites=suites,
                                            selection=selection, command=command))


def crashed_item_result(runner: _Runner, store: RunStore, nodeid: str, message: str) -> ItemResult:
    """The ``error`` result of an item whose xdist worker died, journaled by the controller."""
    match = _NODEID.match(nodeid)
    parts = match.groupdict() if match else {"path": nodeid.split("::")[0], "user": "?", "subtask": nodeid,
                                             "memory": "?", "trial": "0"}
    domain, index, sha = "unknown", 0, ""
    try:  # the domain keeps the crashed item in the right by-domain row
        suite = runner.suite(parts["path"], lazy=True)
        sha = suite.sha256
        user = next(u for u in suite.users if u.key == parts["user"])
        index = next(i for i, sub in enumerate(user.outline) if sub.subtask_id == parts["subtask"])
        domain = ",".join(user.outline[index].domains)
    except Exception:  # a crash report must never fail itself
        pass
    result = ItemResult(nodeid=nodeid, suite=parts["path"], user_id=parts["user"], subtask_id=parts["subtask"],
                        subtask_index=index, domain=domain, memory=parts["memory"], trial=int(parts["trial"]),
                        outcome="error", reward=0.0, termination="error", error=f"worker crashed: {message}")
    try:
        journal_item(RunStore(store.path, writer="controller"), result, suite_sha256=sha,
                     config_sha256=config_sha256(runner.config.manifest()))
    except OSError:
        pass
    return result


def run_metadata(*, store: RunStore, started: float, command: list[str], rootdir: Path, planned: int,
                 completed: int, resumed: int, trials_selected: int | None = None) -> dict[str, Any]:
    """The report's ``run`` block (``trials_selected``: the metrics' k, the trials selected per unit)."""
    return {
        "id": store.run_id, "dir": str(store.path.resolve()),
        "started": now_iso(started), "finished": now_iso(),
        "command": command, "plugin_version": __version__, "python": platform.python_version(),
        "git_commit": git_commit(rootdir), "planned": planned, "completed": completed, "resumed": resumed,
        "partial": completed < planned, "trials_selected": trials_selected,
    }


#: The file a finished session leaves in its run directory for ``vitabench merge``.
SUMMARY = "summary.json"
SUMMARY_SCHEMA = "vitabench-run-summary/1"


def write_run_summary(store: RunStore, *, config: dict[str, Any], usage: dict[str, Any], run: dict[str, Any]) -> None:
    """Leave the report's ``config`` block, the LLM usage and the run metadata in the run directory, so that
    its pieces can be merged into the report this run would have written (the journal holds the items)."""
    document = {"schema": SUMMARY_SCHEMA, "config": config, "usage": usage, "run": run}
    try:
        write_atomic(store.path / SUMMARY, json.dumps(document, indent=1, ensure_ascii=False, default=str).encode())
    except OSError:
        pass  # the report and the journal matter more than this convenience; merge says what is missing
