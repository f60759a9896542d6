"""The ``slow`` marker: registered, applied from one list in the root conftest.py, and ``-m "not slow"`` works."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _slow_tests() -> tuple[str, ...]:
    tree = ast.parse((ROOT / "conftest.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "SLOW_TESTS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("conftest.py defines no SLOW_TESTS")


def test_every_slow_entry_names_an_existing_file_and_test():
    entries = _slow_tests()
    assert entries
    for entry in entries:
        path, _, function = entry.partition("::")
        source = ROOT / path
        assert source.is_file(), f"{entry}: no such file (renamed? update SLOW_TESTS in conftest.py)"
        if function:
            names = {n.name for n in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
                     if isinstance(n, ast.FunctionDef)}
            assert function in names, f"{entry}: no such test (renamed? update SLOW_TESTS in conftest.py)"


def test_not_slow_deselects_the_slow_ones_and_the_marker_is_registered():
    def collect(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                               "--strict-markers", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    quick = collect("-m", "not slow", "tests/plugin/test_resume.py", "tests/plugin/test_running.py")
    assert "test_resume.py" not in quick  # a whole file on the list
    assert "test_xdist_gives_the_same_metrics_as_a_serial_run" not in quick  # one test of a file
    assert "test_items_pass_and_fail_with_rubric_messages" in quick  # its neighbours stay
    slow = collect("-m", "slow", "tests/plugin/test_running.py")
    assert "test_xdist_gives_the_same_metrics_as_a_serial_run" in slow
    assert "test_items_pass_and_fail_with_rubric_messages" not in slow
