"""Run directories: the manifest and journal of every run, blobs of trajectories and memory snapshots,
resuming a run, and :func:`open_run`, the one way to read a finished or crashed run back."""

from __future__ import annotations

from .reader import Run, load_run, open_run

__all__ = ["Run", "load_run", "open_run"]
