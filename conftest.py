"""Test configuration of the plugin's own test suite (``pytest`` at the repository root)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

# Suite-shaped fixtures (official-format and 1.0 samples) live under tests/data; the plugin would collect them by
# their shape, but they are inputs of the tests, not suites to run.
collect_ignore = ["tests/data"]

#: The slowest tests (seconds each on an idle 2-core machine, minutes on a busy one; ``pytest --durations=30``
#: finds them), by file or by test function (all its parameters). Marked ``slow`` here, in one place, so that
#: ``pytest -m "not slow"`` is a quick run; CI runs them all. ``tests/packaging`` checks every entry exists.
SLOW_TESTS = (
    "tests/plugin/test_resume.py",
    "tests/test_docs_recipes.py::test_the_recipe_runs_as_written",
    "tests/plugin/test_concurrency.py",
    "tests/plugin/test_baseline.py",
    "tests/plugin/test_faults.py",
    "tests/llm/test_xdist_limits.py",
    "tests/view/test_viewer_browser.py",
    "tests/test_docs_browser.py",
    "tests/test_readme.py::test_readme_command_runs_as_written",
    "tests/plugin/test_running.py::test_rate_and_concurrency_limits_hold_across_xdist_workers",
    "tests/plugin/test_running.py::test_xdist_gives_the_same_metrics_as_a_serial_run",
    "tests/plugin/test_bad_input.py::test_under_xdist_the_broken_user_fails_alone",
    "tests/plugin/test_ci_output.py::test_progress_under_xdist_counts_every_workers_items",
    "tests/synth/test_generator.py::test_shipped_paper_suite_passes_every_rule_strictly",
    "tests/synth/test_difficulty.py::test_the_agents_order_as_the_paper_describes",
    "tests/memory/test_memory_axis_run.py::test_backends_axis_pivot_and_snapshots",
    "tests/memory/test_memory_matrix.py::test_backends_order_from_floor_to_ceiling",
    "tests/test_public_api.py::test_type_checkers_see_the_real_classes",
)
#: Fixtures that take seconds to build: a test that uses one is slow as well (its first user pays the build).
SLOW_FIXTURES = frozenset({"paper_bytes", "runs"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path, _, rest = item.nodeid.partition("::")
        function = f"{path}::{rest.split('[')[0]}"
        if path in SLOW_TESTS or function in SLOW_TESTS or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
