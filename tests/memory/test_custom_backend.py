"""Custom backends: the worked example in examples/ installed as a distribution with a ``vitabench.memory``
entry point, then found by name, by the registry and by a whole pytest run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _paths import REPO_ROOT
from _reports import run_with_installed

from pytest_vitabench.memory.base import MemoryContext, memory_tools
from pytest_vitabench.memory.registry import RunMemories
from pytest_vitabench.memory.spec import MemoryOptions
from pytest_vitabench.suite.schema import DailyRecord

EXAMPLE = REPO_ROOT / "examples" / "vitabench-memory-keywords"


def install(site: Path) -> None:
    """Install the example into ``site`` as an installer lays out a wheel: the package next to a
    ``.dist-info`` holding METADATA and entry_points.txt generated from the example's pyproject.toml.
    (Offline and instant; ``pip install ./examples/vitabench-memory-keywords`` gives the same layout.)"""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    shutil.copytree(EXAMPLE / "vitabench_memory_keywords", site / "vitabench_memory_keywords")
    dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = [f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in eps.items())
             for group, eps in project["entry-points"].items()]
    (dist / "entry_points.txt").write_text("\n".join(lines))


def test_entry_point_backend_is_found_and_gets_its_options(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown memory backend 'keywords'"):
        RunMemories().factory("keywords")
    install(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    memory = RunMemories(MemoryOptions(language="zh", cache_dir=tmp_path)).factory("keywords")()
    assert type(memory).__name__ == "KeywordMemory" and memory.language == "zh"  # only declared options passed
    memory.update([DailyRecord(date="2025-01-02", dialogue=[{"role": "user", "content": "No cilantro in my noodles"}]),
                   DailyRecord(date="2025-01-03", dialogue=[{"role": "user", "content": "我喜欢靠窗的座位"}])],
                  MemoryContext(user_id="U1", subtask_id="s1", now="2025-01-04 10:00:00"))
    assert "cilantro" in memory.read("Order me noodles") and "靠窗" not in memory.read("Order me noodles")
    assert "靠窗" in memory.read("帮我订个靠窗的座位")
    assert [t.name for t in memory_tools(memory)] == ["search_history"]


def test_a_run_with_an_installed_backend(pytester, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    install(site)
    result, document = run_with_installed(pytester, site, "--vita-memory", "none,keywords", "--vita-model", "reference")
    result.stdout.fnmatch_lines(["*Memory backends (subtask level, k=1*", "none *", "keywords *"])
    records = document["results"]
    snapshots = {r["memory"]: r["memory_snapshot"] for r in records if r["subtask_id"] == "s1"}
    assert snapshots["none"] == "" and "cilantro" in snapshots["keywords"]
