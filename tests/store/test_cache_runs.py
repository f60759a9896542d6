"""Through pytest: a second run is served from the store, ``--cache-clear`` empties it (not the run
journals), xdist workers writing at once leave whole entries, and a corrupt entry is a miss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _stub_llm import StubLLM
from _suites import tiny_suite

from pytest_vitabench.store import Store, default_root

KEY_ENV = "VITA_STORE_TEST_KEY"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "tasks.json").write_text(json.dumps(tiny_suite()), encoding="utf-8")
    monkeypatch.setenv(KEY_ENV, "sk-store-test-not-a-real-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return pytester


def _run(project: pytest.Pytester, stub: StubLLM, *extra: str) -> pytest.RunResult:
    """The reference agent with rag memory over endpoint embeddings (the stub's deterministic vectors):
    embedding vectors, memory checkpoints and the suite index all go to the store."""
    result = project.runpytest_subprocess(
        "--vita-memory", "rag", "--vita-embedding-model", "stub-embed", "--vita-base-url", stub.base_url,
        "--vita-memory-args", f"embedding-base-url={stub.base_url}", "--vita-limits", "circuit-breaker=1",
        "--vita-preflight", "off",  # the preflight's one request would be the only uncached one
        "--vita-api-key-env", KEY_ENV, "--vita-trials", "2", *extra)
    assert "errors" not in result.parseoutcomes(), result.stdout.str()[-3000:]  # the stub answered everything
    return result


def _embedding_requests(stub: StubLLM) -> int:
    return sum(path.endswith("/embeddings") for path in stub.paths)


def _entries(root: Path) -> dict[str, list[Path]]:
    return {u.name: sorted(p for p in (root / u.name).rglob("*") if p.is_file() and not p.name.startswith("."))
            for u in Store(root).usage()}


def test_a_second_run_is_served_from_the_store_and_cache_clear_empties_it(project, stub):
    first = _run(project, stub)
    cold = _embedding_requests(stub)
    root = default_root(project.path)
    entries = _entries(root)
    assert cold > 0 and entries["embeddings"] and entries["memory"] and entries["suites"]
    assert not (project.path / ".vitabench_cache").exists()

    (project.path / ".vitabench_cache").mkdir()  # the cache directory of earlier releases
    second = _run(project, stub)
    assert _embedding_requests(stub) == cold  # every vector came from the store
    assert second.parseoutcomes() == first.parseoutcomes()
    second.stdout.fnmatch_lines(["*.vitabench_cache/ is no longer read*remove it with `vitabench cache clear`*"])

    Store(root).namespace("llm").put_json("ab" * 32, {"x": 1})  # an LLM answer from some earlier run
    runs_before = sorted(p.name for p in (project.path / ".vitabench" / "runs").iterdir())
    cleared = _run(project, stub, "--cache-clear")
    assert _embedding_requests(stub) == 2 * cold  # cold again
    assert cleared.parseoutcomes() == first.parseoutcomes()
    assert Store(root).namespace("llm").get_json("ab" * 32) is None
    assert not (project.path / ".vitabench_cache").exists()
    # the run journals (what --vita-resume reads) survive a cache clear
    assert set(runs_before) <= {p.name for p in (project.path / ".vitabench" / "runs").iterdir()}


def test_xdist_workers_writing_at_once_leave_whole_entries(project, stub):
    first = _run(project, stub, "-n", "2")
    cold = _embedding_requests(stub)
    root = default_root(project.path)
    entries = _entries(root)
    for path in entries["embeddings"]:
        assert path.stat().st_size == 16  # the stub's 4-dimensional float32 vectors
    for path in entries["memory"] + entries["suites"]:
        json.loads(path.read_text(encoding="utf-8"))
    assert not [p for p in root.rglob("*") if p.name.endswith(".tmp")]
    again = _run(project, stub, "-n", "2")
    assert _embedding_requests(stub) == cold and again.parseoutcomes() == first.parseoutcomes()


def test_a_corrupt_entry_is_a_miss_not_a_crash(project, stub):
    first = _run(project, stub)
    cold = _embedding_requests(stub)
    root = default_root(project.path)
    entries = _entries(root)
    for path in [p for paths in entries.values() for p in paths]:
        path.write_bytes(path.read_bytes()[:3])  # torn by a crash or another tool
    second = _run(project, stub)
    assert second.parseoutcomes() == first.parseoutcomes()
    assert "Traceback" not in second.stdout.str()
    assert _embedding_requests(stub) == 2 * cold  # every torn vector was a miss, fetched again
    for path in _entries(root)["embeddings"]:
        assert path.stat().st_size == 16  # and written whole again
