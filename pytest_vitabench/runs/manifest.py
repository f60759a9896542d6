"""What identifies a run's configuration, and which earlier run ``--vita-resume`` may continue.

The *scoring configuration* is the manifest's ``config`` block as :mod:`.identity` compares it: without the
settings that only say how to reach the endpoint (resuming against another port or host of the same model is
allowed) or how the run went.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .identity import measured, settings_differences
from .store import RunStore, runs_root

MANIFEST_SCHEMA = "vitabench-run/1"


class ResumeError(ValueError):
    """``--vita-resume`` cannot continue the requested run; the message says which settings differ."""


def scoring_config(config: dict[str, Any]) -> dict[str, Any]:
    """The settings of ``config`` that identify the run (:func:`.identity.measured`, the plugin version too)."""
    return measured(config)


def config_sha256(config: dict[str, Any]) -> str:
    canonical = json.dumps(scoring_config(config), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def now_iso(seconds: float | None = None) -> str:
    """``seconds`` since the epoch (by default now) as UTC, e.g. ``2026-11-30T12:59:59Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def git_commit(rootdir: str | Path) -> str | None:
    """The commit checked out at ``rootdir`` (``+dirty`` when files are modified), or ``None``."""
    root = Path(rootdir)
    if not any((p / ".git").exists() for p in (root, *root.parents)):
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if dirty else head


def build_manifest(*, run_id: str, config: dict[str, Any], suites: dict[str, str], selection: dict[str, Any],
                   command: list[str]) -> dict[str, Any]:
    """The manifest written into a run directory when its first item is journaled."""
    return {
        "schema": MANIFEST_SCHEMA, "run_id": run_id, "created": now_iso(),
        "plugin_version": config.get("plugin_version"), "python": platform.python_version(),
        "config": config, "config_sha256": config_sha256(config), "suites": dict(sorted(suites.items())),
        "selection": selection, "command": command, "executable": sys.executable,
    }


def difference_lines(saved: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """``"setting: saved X, now Y"`` for each setting that differs between two configs
    (:func:`.identity.settings_differences`)."""
    return [f"{key}: saved {saved.get(key)!r}, now {current.get(key)!r}"
            for key in settings_differences(saved, current)]


def find_resumable(rootdir: str | Path, requested: str, config: dict[str, Any]) -> RunStore:
    """The run that ``--vita-resume`` continues: ``requested`` is ``latest`` (the newest run with the same
    scoring configuration), a path or a run id.

    Raises:
        ResumeError: The requested run does not exist or has another configuration; or, for ``latest``,
            there is no earlier run, or none has this configuration (the newest one's differences are listed).
    """
    root = runs_root(rootdir)
    wanted = config_sha256(config)
    if requested == "latest":
        candidates = sorted((p for p in root.glob("*") if (p / "manifest.json").is_file()), reverse=True) \
            if root.is_dir() else []
        if not candidates:
            raise ResumeError(nothing_to_resume(root))
        for path in candidates:
            manifest = RunStore(path).manifest()
            if manifest and manifest.get("config_sha256") == wanted:
                return RunStore(path)
        newest = RunStore(candidates[0]).manifest() or {}
        raise ResumeError(_mismatch(candidates[0], newest, config, none_compatible=True))
    path = Path(requested)
    if not path.is_dir() and (root / requested).is_dir():
        path = root / requested
    store = RunStore(path)
    manifest = store.manifest()
    if manifest is None:
        raise ResumeError(f"--vita-resume={requested}: no run directory with a manifest.json there "
                          f"(runs live in {root})")
    if manifest.get("config_sha256") != wanted:
        raise ResumeError(_mismatch(path, manifest, config, none_compatible=False))
    return store


def nothing_to_resume(root: Path, named: Path | None = None) -> str:
    """The usage error of a ``--vita-resume`` that finds no journaled run: silently starting afresh would
    redo (and pay for) work the user believes is saved."""
    where = f"the run directory {named} holds no journaled run" if named is not None \
        else f"no earlier run in {root}"
    return (f"--vita-resume: nothing to resume: {where}. Run without --vita-resume to start a run; "
            "a run journals its items as they finish.")


def _mismatch(path: Path, manifest: dict[str, Any], config: dict[str, Any], *, none_compatible: bool) -> str:
    diffs = difference_lines(manifest.get("config") or {}, config)
    head = (f"--vita-resume: no earlier run has this configuration; the newest, {path}, differs in:"
            if none_compatible else f"--vita-resume: the run {path} has another configuration:")
    body = "\n".join(f"  {line}" for line in diffs) or "  (its manifest has no comparable config)"
    return f"{head}\n{body}\nRun with the same settings, or without --vita-resume to start a new run."
