"""``vitabench cache info`` and ``vitabench cache clear``."""

from __future__ import annotations

import pytest

from pytest_vitabench.commands.cli import main
from pytest_vitabench.store import Store, default_root

KEY = "cd" * 32


@pytest.fixture
def filled(tmp_path):
    store = Store(default_root(tmp_path))
    store.namespace("llm").put_json(KEY, {"answer": "x" * 2000})
    store.namespace("embeddings", suffix=".f32").write(KEY, b"\0" * 16)
    store.namespace("memory").put_json(KEY, {"state": 1})
    (tmp_path / ".vitabench" / "runs" / "r1").mkdir(parents=True)
    return tmp_path


def test_info_lists_every_kind_with_counts_and_what_keys_it(filled, capsys):
    assert main(["cache", "info", "--rootdir", str(filled)]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert str(default_root(filled)) in out.splitlines()[0]
    assert "1 entries" in lines["llm"] and "trial seed" in lines["llm"] and "KB" in lines["llm"]
    assert "1 entries" in lines["embeddings"] and "16 B" in lines["embeddings"]
    assert "0 entries" in lines["suites"]
    assert ".vitabench_cache" not in out


def test_clear_named_kinds_then_everything_keeping_the_runs(filled, capsys):
    (filled / ".vitabench_cache").mkdir()
    assert main(["cache", "info", "--rootdir", str(filled)]) == 0
    assert "vitabench cache clear" in capsys.readouterr().out  # the legacy directory is pointed out
    assert main(["cache", "clear", "llm", "--rootdir", str(filled)]) == 0
    assert "removed 1 cached entries (llm 1)" in capsys.readouterr().out
    store = Store(default_root(filled))
    assert store.namespace("llm").get_json(KEY) is None and store.namespace("memory").get_json(KEY) == {"state": 1}
    assert (filled / ".vitabench_cache").is_dir()  # only the kinds named
    assert main(["cache", "clear", "--rootdir", str(filled)]) == 0
    out = capsys.readouterr().out
    assert "removed 2 cached entries (embeddings 1, memory 1)" in out and "legacy" in out
    assert store.usage() == [] and not (filled / ".vitabench_cache").exists()
    assert (filled / ".vitabench" / "runs" / "r1").is_dir()


def test_clear_refuses_an_unknown_kind(filled, capsys):
    assert main(["cache", "clear", "llms", "--rootdir", str(filled)]) == 2
    assert "unknown kind llms" in capsys.readouterr().err
    assert Store(default_root(filled)).namespace("llm").get_json(KEY) is not None


def test_a_missing_cache_is_empty(tmp_path, capsys):
    assert main(["cache", "info", "--rootdir", str(tmp_path / "nowhere")]) == 0
    assert main(["cache", "clear", "--rootdir", str(tmp_path / "nowhere")]) == 0
    assert "removed 0 cached entries" in capsys.readouterr().out


def test_the_rootdir_is_found_upwards_from_a_subdirectory(filled, monkeypatch, capsys):
    (filled / "tests" / "deep").mkdir(parents=True)
    monkeypatch.chdir(filled / "tests" / "deep")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"cache: {default_root(filled)}" and "1 entries" in out
