"""Read a JSON report with every result's trajectory and memory snapshot attached (schema /2 keeps them in
the run directory), through the one run reader; run the tiny suite with installed entry points."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _suites import tiny_suite

from pytest_vitabench.runs import open_run


def full_report(path: str | Path) -> dict[str, Any]:
    run = open_run(path)
    report = json.loads(Path(path).read_text(encoding="utf-8"))
    report["results"] = [run.full_result(row["nodeid"]) for row in run.results]
    return report


def run_with_installed(pytester: Any, site: Path, *args: str) -> tuple[Any, dict[str, Any]]:
    """Run the tiny suite in ``pytester`` with the distributions installed in ``site`` importable (how a
    third-party entry point reaches a run); returns pytest's result and the full report."""
    pytester.syspathinsert(site)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    report = pytester.path / "run.json"
    result = pytester.runpytest(*args, "--vita-trials", "1", "--vita-report", str(report), "-p", "no:cacheprovider")
    return result, full_report(report)
