"""Paths to test data outside the repository.

The real VitaBench 1.0 data lives in ``../shared/data/vitabench1`` beside the clone (CI provides it; a
user's clone may not). Tests that read it must ``pytest.skip`` when :data:`VB1_DIR` is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# ``VITA_SHARED_DIR`` points elsewhere (a git worktree one level deeper), as for the official harness.
VB1_DIR = Path(os.environ.get("VITA_SHARED_DIR") or REPO_ROOT.parent / "shared") / "data" / "vitabench1"
VB1_SKIP_REASON = f"VitaBench 1.0 test data not found at {VB1_DIR} (needs ../shared beside the clone)"
