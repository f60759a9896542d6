"""Hooks that third-party plugins and conftest.py files can implement (``pytest_vitabench_*``)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec()
def pytest_vitabench_result(result: Any, item: pytest.Item) -> None:
    """Called on the process that ran ``item`` (an xdist worker, or the main process) with its result.

    Example::

        def pytest_vitabench_result(result, item):
            if result.outcome == "failed":
                print(result.nodeid, [r.text for r in result.rubrics if r.met is False])

    Args:
        result: The :class:`pytest_vitabench.result.ItemResult`; mutating it changes what is reported.
    """


@pytest.hookspec()
def pytest_vitabench_report(report: dict[str, Any], config: pytest.Config) -> None:
    """Called once, on the controller, with the ``vitabench-report/2`` dict before it is written.

    Example::

        def pytest_vitabench_report(report, config):
            report["config"]["ci_job"] = os.environ.get("CI_JOB_ID")
    """
