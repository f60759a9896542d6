"""A third-party backend declared as a :class:`MemorySpec` (docs/extending.md's walk-through): found through
``module:SPEC``, built with the run's :class:`MemoryOptions`, and run by pytest with its declared properties."""

from __future__ import annotations

import json

import pytest
from _reports import full_report
from _suites import tiny_suite

from pytest_vitabench.memory.registry import memory_spec
from pytest_vitabench.memory.spec import MemoryOptions, MemorySpec

BACKEND = '''
import json
import os

from pytest_vitabench import EMPTY_MEMORY, MemorySpec, render_record


class RecentMemory:
    """The newest history lines, at most ``keep``."""

    def __init__(self, keep, language):
        self.keep, self.language, self.lines = keep, language, []

    def update(self, records, context):
        with open(os.environ["VITA_SPEC_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps([context.subtask_id, context.trial, self.language]) + "\\n")
        self.lines = (self.lines + [line for r in records for line in render_record(r)])[-self.keep:]

    def read(self, query=None):
        return "\\n".join(self.lines) or EMPTY_MEMORY


def build(options):
    keep = 3 if options.full_context_max_tokens is None else 5
    return lambda: RecentMemory(keep, options.language)


SPEC = MemorySpec(name="recent", build=build, deterministic=True, prompt_budget=lambda options: 512)
'''


@pytest.fixture
def backend(tmp_path, monkeypatch):
    (tmp_path / "vita_recent_backend.py").write_text(BACKEND, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "vita_recent_backend:SPEC"


def test_the_registry_returns_a_declared_spec_as_it_is(backend):
    spec = memory_spec(backend)
    assert isinstance(spec, MemorySpec) and spec.name == "recent"
    assert spec.is_deterministic(MemoryOptions()) and spec.prompt_budget(MemoryOptions()) == 512
    memory = spec.build(MemoryOptions(language="zh"))()
    assert memory.read() == "No user preference information available yet." and memory.language == "zh"


def test_a_run_uses_the_spec_one_chain_for_every_trial(backend, pytester, tmp_path, monkeypatch):
    log = tmp_path / "updates.jsonl"
    monkeypatch.setenv("VITA_SPEC_LOG", str(log))
    pytester.syspathinsert(tmp_path)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.vita.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    result = pytester.runpytest("--vita-memory", f"none,{backend}", "--vita-trials", "2", "-p", "no:cacheprovider",
                                "--vita-report", "run.json")
    outcomes = result.parseoutcomes()
    assert "errors" not in outcomes and "error" not in outcomes, result.stdout.str()  # items may fail, not error
    updates = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    subtasks = sum(len(user["subtasks"]) for user in tiny_suite())
    # Declared deterministic: each subtask's history is ingested once, for trial 0, in the suite's language.
    assert len(updates) == subtasks and {trial for _, trial, _ in updates} == {0}
    assert {language for _, _, language in updates} == {"en"}
    report = full_report(pytester.path / "run.json")  # the records' trajectories and snapshots included
    assert set(report["metrics"]) == {"none", "recent"}  # the spec's name, not its module path
    assert report["config"]["memory"] == ["none", "recent"]
    snapshots = [r["memory_snapshot"] for r in report["results"] if r["memory"] == "recent"]
    assert len(snapshots) == 2 * subtasks and any("noodles" in s or "cilantro" in s for s in snapshots)
