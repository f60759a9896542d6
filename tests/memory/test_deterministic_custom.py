"""A custom memory's ``deterministic = True`` is honoured: one memory chain serves every trial, as the
memory protocol documents (``pytest_vitabench/memory/base.py``) and as the built-ins do."""

from __future__ import annotations

import json

import pytest
from _suites import tiny_suite

from pytest_vitabench.memory.registry import memory_spec
from pytest_vitabench.memory.spec import MemoryOptions

BACKENDS = '''
import json
import os

from pytest_vitabench import EMPTY_MEMORY


class _Recording:
    def __init__(self):
        self.lines = []

    def update(self, records, context):
        with open(os.environ["VITA_TRIALS_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps([type(self).__name__, context.subtask_id, context.trial]) + "\\n")
        self.lines.append(context.subtask_id)

    def read(self, query=None):
        return " ".join(self.lines) or EMPTY_MEMORY


class SharedMemory(_Recording):
    deterministic = True


class PerTrialMemory(_Recording):
    pass


class FalseMemory(_Recording):
    deterministic = False


class PropertyMemory(_Recording):
    @property
    def deterministic(self):
        return True
'''


@pytest.fixture
def backends(tmp_path, monkeypatch):
    (tmp_path / "vita_det_backends.py").write_text(BACKENDS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "vita_det_backends"


def _deterministic(name: str) -> bool:
    return memory_spec(name).is_deterministic(MemoryOptions())


def test_registry_reads_the_class_attribute(backends):
    assert _deterministic(f"{backends}:SharedMemory")
    assert not _deterministic(f"{backends}:PerTrialMemory")  # undeclared: one chain per trial, the safe side
    assert not _deterministic(f"{backends}:FalseMemory")
    assert not _deterministic(f"{backends}:PropertyMemory")  # only a plain True declares it


@pytest.mark.parametrize("name", ["vita_det_backends:Missing", "no_such_module_xyz:Memory", "no-such-entry-point"])
def test_a_backend_that_cannot_load_is_an_error_not_a_guess(backends, name):
    with pytest.raises(ValueError, match="memory backend"):
        memory_spec(name)


def test_a_run_builds_one_chain_for_every_trial_of_a_deterministic_backend(backends, pytester, tmp_path,
                                                                           monkeypatch):
    log = tmp_path / "trials.jsonl"
    monkeypatch.setenv("VITA_TRIALS_LOG", str(log))
    pytester.syspathinsert(tmp_path)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.vita.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    result = pytester.runpytest("--vita-memory", f"{backends}:SharedMemory,{backends}:PerTrialMemory",
                                "--vita-trials", "3", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert "errors" not in outcomes and "error" not in outcomes, result.stdout.str()  # items may fail, not error
    updates = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    trials = {name: {trial for kind, _, trial in updates if kind == name} for name in ("SharedMemory",
                                                                                        "PerTrialMemory")}
    assert trials == {"SharedMemory": {0}, "PerTrialMemory": {0, 1, 2}}
    subtasks = sum(len(user["subtasks"]) for user in tiny_suite())
    shared = [u for u in updates if u[0] == "SharedMemory"]
    # One chain per user: each subtask's history is ingested once, not once per trial.
    assert len(shared) == subtasks
    assert len([u for u in updates if u[0] == "PerTrialMemory"]) == 3 * subtasks
