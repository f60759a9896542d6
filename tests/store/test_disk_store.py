"""The disk store: namespaces, content keys, corrupt entries as misses, and concurrent writers in several
processes never leaving a torn entry."""

from __future__ import annotations

import json
import multiprocessing

import pytest

from pytest_vitabench.store import Store, content_key, default_root
from pytest_vitabench.store.disk import clear_project, legacy_notice

KEY = "ab" * 32


def test_content_key_is_canonical_and_stable():
    assert content_key({"b": 1, "a": [1, "x"]}) == content_key({"a": [1, "x"], "b": 1})
    assert content_key({"a": 1}) != content_key({"a": 2})
    # the same on every run, process and Python version (a resumed run must find yesterday's entries)
    assert content_key({"a": 1}) == "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"


def test_namespaces_are_separate_directories_under_one_root(tmp_path):
    store = Store(tmp_path)
    llm, memory = store.namespace("llm"), store.namespace("memory")
    assert llm.put_json(KEY, {"answer": 1}, meta={"role": "judge"})
    assert llm.get_json(KEY) == {"answer": 1} and memory.get_json(KEY) is None
    assert llm.path(KEY) == tmp_path / "llm" / "ab" / "ab" / f"{KEY}.json"
    entry = json.loads(llm.path(KEY).read_text())
    assert entry["meta"]["role"] == "judge" and entry["key"] == KEY and entry["v"] == 1
    vectors = store.namespace("embeddings", suffix=".f32")
    assert vectors.write(KEY, b"\x00" * 8) and vectors.read(KEY) == b"\x00" * 8
    assert [u.name for u in store.usage()] == ["llm", "embeddings"]  # known kinds first, in their order
    assert default_root(tmp_path) == tmp_path / ".vitabench" / "cache"


@pytest.mark.parametrize("garbage", [
    b"", b"{not json", b"[1, 2]", b'{"v": 1, "key": "other", "value": {"x": 1}}', b'{"v": 99, "key": "' +
    KEY.encode() + b'", "value": {"x": 1}}', b"\xff\xfe\x00",
], ids=["empty", "torn", "not-an-object", "foreign-key", "other-version", "not-utf8"])
def test_a_corrupt_or_foreign_entry_is_a_miss_and_is_replaced(tmp_path, garbage, caplog):
    namespace = Store(tmp_path).namespace("memory")
    namespace.path(KEY).parent.mkdir(parents=True)
    namespace.path(KEY).write_bytes(garbage)
    assert namespace.get_json(KEY) is None
    assert namespace.put_json(KEY, {"x": 2}) and namespace.get_json(KEY) == {"x": 2}


def test_an_unwritable_or_unserializable_entry_costs_a_miss_not_a_crash(tmp_path, caplog):
    namespace = Store(tmp_path / "file").namespace("llm")
    (tmp_path / "file").write_text("a file where the root directory should be")
    assert namespace.put_json(KEY, {"x": 1}) is False and namespace.get_json(KEY) is None
    assert "could not write cache entry" in caplog.text
    assert Store(tmp_path).namespace("llm").put_json(KEY, {"x": object()}) is False
    assert not list(tmp_path.rglob("*.tmp"))


def test_an_unreadable_entry_is_a_miss(tmp_path, caplog):
    namespace = Store(tmp_path).namespace("llm")
    namespace.path(KEY).mkdir(parents=True)  # a directory where the entry should be: reading it fails
    assert namespace.read(KEY) is None and "unreadable cache entry" in caplog.text


def test_clear_empties_every_namespace_and_the_legacy_directory_but_not_the_runs(tmp_path):
    store = Store(default_root(tmp_path))
    for name in ("llm", "embeddings", "memory", "custom"):
        store.namespace(name).put_json(KEY, {"x": 1})
    runs = tmp_path / ".vitabench" / "runs" / "20261130-120000-abcdef"
    runs.mkdir(parents=True)
    (runs / "journal.jsonl").write_text("{}\n")
    (tmp_path / ".vitabench_cache" / "ab").mkdir(parents=True)
    assert "vitabench cache clear" in (legacy_notice(tmp_path) or "")
    removed, legacy = clear_project(tmp_path)
    assert removed == {"llm": 1, "embeddings": 1, "memory": 1, "custom": 1} and legacy
    assert store.usage() == [] and not (tmp_path / ".vitabench_cache").exists() and legacy_notice(tmp_path) is None
    assert (runs / "journal.jsonl").read_text() == "{}\n"
    assert list(store.root.iterdir()) == []  # no trash left behind
    assert clear_project(tmp_path) == ({}, False)  # clearing an empty or missing store is fine


def test_clear_can_keep_other_namespaces(tmp_path):
    store = Store(tmp_path)
    store.namespace("llm").put_json(KEY, {"x": 1})
    store.namespace("suites").put_json(KEY, {"x": 1})
    assert store.clear(["suites"]) == {"suites": 1}
    assert store.namespace("llm").get_json(KEY) == {"x": 1}


# ------------------------------------------------------------------------- several processes at once

WRITERS = 4
ROUNDS = 150
KEYS = [content_key({"i": i}) for i in range(5)]


def _writer(root: str, writer: int, start, errors) -> None:
    """Write and read the same few keys as the other writers; any torn or mixed read is an error."""
    namespace = Store(root).namespace("llm")
    raw = Store(root).namespace("embeddings", suffix=".f32")
    start.wait(timeout=30)
    for round_ in range(ROUNDS):
        for key in KEYS:
            # A large value, so a write is not one atomic block and a torn file would show.
            namespace.put_json(key, {"writer": writer, "round": round_, "pad": [writer] * 2000})
            raw.write(key, bytes([writer]) * 4096)
            value = namespace.get_json(key)
            if value is not None and (set(value["pad"]) != {value["writer"]} or len(value["pad"]) != 2000):
                errors.put(f"mixed json entry {value['writer']}")
            data = raw.read(key)
            if data is not None and (len(data) != 4096 or len(set(data)) != 1):
                errors.put(f"torn vector entry of {len(data)} bytes")


def _clearer(root: str, start, stop) -> None:
    start.wait(timeout=30)
    while not stop.is_set():
        Store(root).clear()


@pytest.mark.parametrize("clearing", [False, True], ids=["writers", "writers-and-a-clearer"])
def test_concurrent_writers_in_several_processes_never_leave_a_torn_entry(tmp_path, clearing):
    ctx = multiprocessing.get_context("spawn")
    start, errors, stop = ctx.Barrier(WRITERS + clearing), ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, start, errors)) for w in range(WRITERS)]
    clearer = ctx.Process(target=_clearer, args=(str(tmp_path), start, stop))
    if clearing:
        clearer.start()
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=300)
    stop.set()
    if clearing:
        clearer.join(timeout=60)
        assert clearer.exitcode == 0
        Store(tmp_path).clear()
    assert [proc.exitcode for proc in procs] == [0] * WRITERS
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == []
    store = Store(tmp_path)
    for key in KEYS:
        value = store.namespace("llm").get_json(key)
        assert clearing or (value is not None and set(value["pad"]) == {value["writer"]})
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
