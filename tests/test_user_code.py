"""``module:attribute`` values (``--vita-memory``, ``--vita-judge-model``) load the user's module from the
project's folders when ``sys.path`` lacks it, and name a spec by the name it declares."""

from __future__ import annotations

import sys

import pytest
from _paths import REPO_ROOT

from pytest_vitabench.judges.registry import LLM_RUBRIC, JudgeSpec, judge_spec
from pytest_vitabench.memory.registry import memory_spec
from pytest_vitabench.options import user_code, values

DEMO = REPO_ROOT / "suites" / "demo" / "tasks.json"
SPEC = '''
from pytest_vitabench import EMPTY_MEMORY, MemorySpec


class Nothing:
    def update(self, records, context):
        pass

    def read(self, query=None):
        return EMPTY_MEMORY


SPEC = MemorySpec(name={name!r}, build=lambda options: Nothing)
'''


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A project folder that is not on ``sys.path``; what the test loads from it is forgotten after it."""
    before, modules = list(sys.path), set(sys.modules)
    monkeypatch.chdir(tmp_path.parent)
    user_code.set_project_folders([tmp_path])
    yield tmp_path
    user_code.set_project_folders([])
    sys.path[:] = before
    for name in set(sys.modules) - modules:
        del sys.modules[name]


def test_a_module_in_a_project_folder_loads_and_its_spec_is_named_by_its_name(folder):
    (folder / "uc_recent.py").write_text(SPEC.format(name="uc_recent_name"), encoding="utf-8")
    assert values.memory_list("--vita-memory", "none, uc_recent:SPEC") == ["none", "uc_recent_name"]
    # the registry finds the spec by the name it declared; the folder is appended, shadowing nothing installed
    assert memory_spec("uc_recent_name") is memory_spec("uc_recent:SPEC")
    assert sys.path[-1] == str(folder.resolve())


def test_a_module_nowhere_says_where_it_was_looked_for(folder):
    with pytest.raises(ValueError, match=r"--vita-memory: cannot load memory backend 'uc_missing:SPEC': No module "
                                         r"named 'uc_missing' \(looked on sys.path and in .*\)"):
        values.memory_list("--vita-memory", "uc_missing:SPEC")


def test_a_missing_import_inside_the_module_is_reported_as_that(folder):
    (folder / "uc_broken.py").write_text("import uc_not_installed\n", encoding="utf-8")
    with pytest.raises(ValueError, match="No module named 'uc_not_installed'"):
        values.memory_list("--vita-memory", "uc_broken:SPEC")


def test_two_specs_may_not_declare_one_name(folder):
    (folder / "uc_one.py").write_text(SPEC.format(name="twin"), encoding="utf-8")
    (folder / "uc_two.py").write_text(SPEC.format(name="twin"), encoding="utf-8")
    with pytest.raises(ValueError, match="'uc_one:SPEC' and 'uc_two:SPEC' both declare the name 'twin'"):
        values.memory_list("--vita-memory", "uc_one:SPEC,uc_two:SPEC")
    assert values.memory_list("--vita-memory", "uc_one:SPEC,uc_one:SPEC") == ["twin"]


def test_a_judge_spec_loads_by_reference_and_a_model_tag_stays_a_model(folder):
    (folder / "uc_judges.py").write_text(
        "from pytest_vitabench import JudgeSpec\nSPEC = JudgeSpec('uc_strict', lambda options: None)\n"
        "OTHER = 3\n", encoding="utf-8")
    spec = judge_spec("uc_judges:SPEC")
    assert isinstance(spec, JudgeSpec) and spec.name == "uc_strict"
    with pytest.raises(ValueError, match="names a int, not a JudgeSpec"):
        judge_spec("uc_judges:OTHER")
    for model in ("qwen2.5:7b", "llama3:8b", "mistral:latest", "gpt-4.1"):
        assert judge_spec(model) is LLM_RUBRIC


@pytest.mark.parametrize("name", ["full_context", "null"])
def test_a_run_refuses_a_spec_named_like_a_builtin_backend(pytester, name):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "tasks.json").write_bytes(DEMO.read_bytes())
    (pytester.path / "suites" / "uc_clash.py").write_text(SPEC.format(name=name), encoding="utf-8")
    result = pytester.runpytest("suites", "-p", "no:cacheprovider", "--vita-memory", "uc_clash:SPEC")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--vita-memory: 'uc_clash:SPEC' declares the name {name!r} of a built-in "
                                 "backend; give its spec a name of its own*"])
    sys.modules.pop("uc_clash", None)
