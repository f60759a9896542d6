"""Read a JSON report with every result's trajectory and memory snapshot attached (schema /2 keeps them in
the run directory), through the one run reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_vitabench.runs import open_run


def full_report(path: str | Path) -> dict[str, Any]:
    run = open_run(path)
    report = json.loads(Path(path).read_text(encoding="utf-8"))
    report["results"] = [run.full_result(row["nodeid"]) for row in run.results]
    return report
