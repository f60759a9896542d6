"""Run the official harness's own tools on a subtask's environment, in a subprocess, for conformance tests.

The official harness (``../shared/official/VitaBench-2.0``) runs with the python named by ``VITA_OFFICIAL_PYTHON``
(an environment with its dependencies installed) and ``PYTHONPATH`` on a private copy of its ``src`` (it may write
into its source root, and parallel tests must not share one). Without either, the test skips with the reason.
Nothing of the official code is imported into this process.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.official.source import OfficialSource, locate

#: ``../shared/official/VitaBench-2.0`` beside the clone; ``VITA_SHARED_DIR`` points elsewhere (a git worktree one
#: level deeper), as for the side-by-side test.
OFFICIAL_DIR = Path(os.environ.get("VITA_SHARED_DIR") or REPO_ROOT.parent / "shared") / "official" / "VitaBench-2.0"

#: Reads {"domain", "environment", "language", "calls": [[name, arguments], ...]} on stdin and prints, per
#: call, what the official environment returns to the model: [content, error]. An argument "$CREATED" stands for
#: the id of the order the last create_* call made (ids are generated differently on each side).
_RUNNER = r"""
import json, sys
from vita.data_model.message import ToolCall
from vita.registry import registry
job = json.load(sys.stdin)
if "," in job["domain"]:
    from vita.environment.environment import get_cross_environment
    env = get_cross_environment(job["domain"], job["environment"], job["language"])
else:
    env = registry.get_env_constructor(job["domain"])(job["environment"], job["language"])
import re
CREATING, CREATED = set(job["creating"]), job["created"]
out, created = [], ""
for i, (name, arguments) in enumerate(job["calls"]):
    arguments = {k: (created if v == "$CREATED" else v) for k, v in arguments.items()}
    message = env.get_response(ToolCall(id=f"c{i}", name=name, arguments=arguments, requestor="assistant"))
    out.append([message.content, bool(message.error)])
    if name in CREATING and (found := re.match(CREATED, message.content)):
        created = found.group(1)
sys.stdout.write("\n" + json.dumps(out, ensure_ascii=False))
"""


#: Tools whose answer starts with the record they created, and the id in that answer.
CREATING = frozenset({"create_delivery_order", "create_instore_product_order", "instore_book", "instore_reservation",
                      "create_hotel_order", "create_attraction_order", "create_flight_order", "create_train_order",
                      "create_taxi_order"})
CREATED = re.compile(r"(?:Order\(order_id:|BookInfo\(book_id=|ReservationInfo\(reservation_id=)([^,]+),")


def official_source() -> OfficialSource:
    """The official harness's source, read as the plugin reads it (its messages reach our official tool results),
    or skip the test saying what is missing."""
    if not OFFICIAL_DIR.is_dir():
        pytest.skip(f"the official harness's source is not at {OFFICIAL_DIR} (needs ../shared beside the clone)")
    source = locate(str(OFFICIAL_DIR))
    assert source is not None
    return source


def official_python() -> str:
    """The official environment's python, or skip the test saying what is missing."""
    python = os.environ.get("VITA_OFFICIAL_PYTHON", "")
    if not OFFICIAL_DIR.is_dir():
        pytest.skip(f"the official harness's source is not at {OFFICIAL_DIR} (needs ../shared beside the clone)")
    if not python or not Path(python).exists():
        pytest.skip("VITA_OFFICIAL_PYTHON is not set to a python with the official harness's dependencies")
    return python


#: The official config module reads a models file at import; the tools call no model.
_MODELS_YAML = """default:
  base_url: http://127.0.0.1:9/v1
  api_key: unused
models:
  - name: unused
"""


def official_source_copy(tmp_path: Path) -> Path:
    """A private, writable copy of the official harness (its source root), with a models file."""
    target = tmp_path / "official"
    if not target.exists():
        shutil.copytree(OFFICIAL_DIR, target, ignore=shutil.ignore_patterns(".git", "figures"))
        (target / "models.yaml").write_text(_MODELS_YAML, encoding="utf-8")
    return target


def run_official_tools(tmp_path: Path, domain: str, environment: dict[str, Any], calls: list[tuple[str, dict]],
                       language: str = "english") -> list[tuple[str, bool]]:
    """``(content, error)`` of each call, as the official environment answers it."""
    python = official_python()
    src = official_source_copy(tmp_path)
    job = json.dumps({"domain": domain, "environment": environment, "language": language,
                      "calls": [list(c) for c in calls], "creating": sorted(CREATING), "created": CREATED.pattern},
                     ensure_ascii=False)
    done = subprocess.run([python, "-c", _RUNNER], input=job, capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(src / "src"), "LOGURU_LEVEL": "ERROR",
                               "VITA_MODEL_CONFIG_PATH": str(src / "models.yaml")})
    assert done.returncode == 0, done.stderr[-4000:]
    # The official tools print tracebacks and progress to stdout: the answer is the last line.
    return [(content, error) for content, error in json.loads(done.stdout.rsplit("\n", 1)[-1])]
