"""Which files are collected as suites: by ``*.vita.json[.gz]``, by being named on the command line, or by
a shape that is a suite; an unrelated ``tasks.json`` in a project that installs the plugin is left alone."""

from __future__ import annotations

import gzip
import json

import pytest
from _paths import REPO_ROOT, VB1_DIR, VB1_SKIP_REASON
from _suites import tiny_suite

from pytest_vitabench.suite.discovery import DEFAULT_PATTERNS, is_suite_file, looks_like_suite, shape_is_suite

SUITE_TEXT = json.dumps(tiny_suite())
VB1_TASK = json.dumps([{"id": "1", "domain": "delivery", "environment": {"time": "2025-06-21 11:20:00"},
                        "instructions": "Order me lunch"}])


@pytest.mark.parametrize("text", [
    SUITE_TEXT,
    "\ufeff \n" + SUITE_TEXT,                       # a byte-order mark and leading whitespace
    SUITE_TEXT[:SUITE_TEXT.index('"subtasks"') + 12],  # cut just after the key: the sniff reads a prefix only
    VB1_TASK,
    json.dumps([{"user_profile": {"note": 'a } and a ] and " in a string'}, "subtasks": []}]),
], ids=["official", "bom", "prefix", "vb1", "brackets-in-strings"])
def test_suite_shapes(text):
    assert shape_is_suite(text)


@pytest.mark.parametrize("text", [
    "", "   ", "[]", "{}", "null", "42", '"tasks"', "[1, 2]", '["subtasks"]', "[[]]",
    json.dumps({"subtasks": []}),                               # an object, not an array of users
    json.dumps([{"title": "write report", "done": False}]),       # a to-do list named tasks.json
    json.dumps([{"meta": {"subtasks": []}}]),                    # the key nested, not the user's own
    json.dumps([{"title": "x"}, {"subtasks": []}]),               # only the first element is read
    json.dumps([{"environment": {}}]),                          # half of a 1.0 task is not one
    json.dumps([{"name": "subtasks"}]),                         # the word as a value
    "[{broken", "[{" + "\"a\": [" * 10_000,                       # truncated, unfinished nesting
    "[" * 100_000,
], ids=lambda text: repr(text[:24]))
def test_other_shapes_are_not_suites(text):
    assert not shape_is_suite(text)


def test_files_by_name_command_line_and_shape(tmp_path):
    unrelated = tmp_path / "tasks.json"
    unrelated.write_text(json.dumps([{"title": "x", "done": True}]))
    suite = tmp_path / "my_tasks.json"
    suite.write_text(SUITE_TEXT)
    broken_named = tmp_path / "broken.vita.json"
    broken_named.write_text("[{broken")
    packed = tmp_path / "packed.json.gz"
    packed.write_bytes(gzip.compress(SUITE_TEXT.encode()))
    not_gzip = tmp_path / "fake.json.gz"
    not_gzip.write_bytes(SUITE_TEXT.encode())
    assert not is_suite_file(unrelated, DEFAULT_PATTERNS)
    assert is_suite_file(unrelated, DEFAULT_PATTERNS, named=True)     # named on the command line: asked for
    assert is_suite_file(suite, DEFAULT_PATTERNS)                     # by shape
    assert is_suite_file(broken_named, DEFAULT_PATTERNS)              # by name, so its errors are reported
    assert is_suite_file(packed, DEFAULT_PATTERNS)
    assert not looks_like_suite(not_gzip)                             # unreadable as named: not a suite here
    assert not looks_like_suite(tmp_path / "missing.json")
    assert not is_suite_file(tmp_path / "notes.txt", DEFAULT_PATTERNS, named=True)
    assert is_suite_file(unrelated, ["tasks.json"])                   # a project's own patterns still win


def test_the_repository_suites_are_found():
    assert is_suite_file(REPO_ROOT / "suites" / "demo" / "tasks.json", DEFAULT_PATTERNS)
    assert is_suite_file(REPO_ROOT / "suites" / "paper" / "tasks.vita.json.gz", DEFAULT_PATTERNS)
    assert looks_like_suite(REPO_ROOT / "suites" / "paper" / "tasks.vita.json.gz")


@pytest.mark.skipif(not VB1_DIR.is_dir(), reason=VB1_SKIP_REASON)
def test_real_vitabench1_files_are_suites_by_shape():
    files = sorted(VB1_DIR.glob("*.json"))
    assert files and all(looks_like_suite(path) for path in files)


TEST_FILE = "def test_ok():\n    assert True\n"


def test_unrelated_tasks_json_in_a_project_is_left_alone(pytester):
    """The plugin installed in someone else's project: their JSON data is not a suite, silently."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    tests = pytester.mkpydir("tests")
    (tests / "test_app.py").write_text(TEST_FILE)
    data = tests / "data"
    data.mkdir()
    (data / "tasks.json").write_text(json.dumps([{"title": "ship it", "done": False}]))
    (data / "tasks_2024.json").write_text(json.dumps({"tasks": [1, 2]}))
    (data / "fixture.json.gz").write_bytes(gzip.compress(b'{"a": 1}'))
    (data / "empty.json").write_text("")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    for trace in ("*VitaBench*", "*VitaSuiteWarning*", "*vitabench profile*", "*tasks*.json*", "*fixture.json*"):
        result.stdout.no_fnmatch_line(trace)


def test_suites_are_collected_by_name_and_by_shape_beside_unrelated_json(pytester, tmp_path):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_text(json.dumps([{"title": "x"}]))
    (pytester.path / "shaped.json").write_text(SUITE_TEXT)
    (pytester.path / "named.vita.json").write_text(SUITE_TEXT)
    result = pytester.runpytest("--collect-only", "-q", "--vita-trials", "1", "-p", "no:cacheprovider")
    lines = [line for line in result.stdout.lines if "::" in line]
    assert {line.split("::")[0] for line in lines} == {"shaped.json", "named.vita.json"}
    # Named on the command line, any JSON file is a suite, and a non-suite one fails with its reason.
    result = pytester.runpytest("tasks.json", "--vita-trials", "1", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*tasks.json: invalid VitaBench suite*"])


def test_the_plugin_default_patterns_are_discovery_defaults():
    from pytest_vitabench.pytest_plugin import plugin

    assert tuple(plugin.DEFAULT_PATTERNS) == DEFAULT_PATTERNS
