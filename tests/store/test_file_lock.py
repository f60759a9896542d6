"""The portable file lock: two processes contending, threads, a dead holder, and no platform lock module
imported anywhere but the one place that chooses it."""

from __future__ import annotations

import ast
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

import pytest_vitabench
from pytest_vitabench.store import FileLock
from pytest_vitabench.store.lock import read_at, write_at


def _hold(path: str, holding, release) -> None:
    with FileLock(path):
        holding.set()
        release.wait(timeout=60)
        Path(path + ".released").write_text("yes")  # written while still holding the lock


def test_a_second_process_waits_for_the_holder(tmp_path):
    path = str(tmp_path / "lock")
    ctx = multiprocessing.get_context("spawn")
    holding, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(path, holding, release))
    holder.start()
    try:
        assert holding.wait(timeout=60)
        contender = FileLock(path)
        assert contender.acquire(blocking=False) is False and not contender.held
        release.set()
        with contender:  # blocks until the holder lets go
            assert Path(path + ".released").read_text() == "yes"
            assert contender.held
        assert not contender.held
    finally:
        release.set()
        holder.join(timeout=60)
    assert holder.exitcode == 0


def _increment(path: str, times: int, start) -> None:
    start.wait(timeout=60)
    for _ in range(times):
        with FileLock(path) as lock:
            count = int.from_bytes(read_at(lock.fd, 0, 8) or b"\0", "little")
            write_at(lock.fd, 0, (count + 1).to_bytes(8, "little"))


def test_contending_processes_never_lose_an_update(tmp_path):
    path, processes, times = str(tmp_path / "counter"), 3, 300
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(processes)
    procs = [ctx.Process(target=_increment, args=(path, times, start)) for _ in range(processes)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=300)
    assert [proc.exitcode for proc in procs] == [0] * processes
    assert int.from_bytes(Path(path).read_bytes(), "little") == processes * times


def test_threads_of_one_process_exclude_each_other(tmp_path):
    path, inside, overlaps = tmp_path / "lock", [], []

    def work() -> None:
        for _ in range(200):
            with FileLock(path):
                inside.append(1)
                time.sleep(0.0005)  # hand the GIL over inside the critical section
                if len(inside) > 1:
                    overlaps.append(len(inside))
                inside.pop()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == []


def _hold_and_die(path: str, holding) -> None:
    FileLock(path).acquire()
    holding.set()
    os._exit(3)  # no release: the operating system must drop the lock


def test_a_dead_holder_does_not_wedge_the_lock(tmp_path):
    path = str(tmp_path / "lock")
    ctx = multiprocessing.get_context("spawn")
    holding = ctx.Event()
    proc = ctx.Process(target=_hold_and_die, args=(path, holding))
    proc.start()
    proc.join(timeout=60)
    assert holding.is_set() and proc.exitcode == 3
    lock = FileLock(path)
    assert lock.acquire(blocking=False)
    lock.release()


def test_misuse_is_an_error(tmp_path):
    lock = FileLock(tmp_path / "lock")
    with pytest.raises(RuntimeError, match="not held"):
        _ = lock.fd
    with lock, pytest.raises(RuntimeError, match="not reentrant"):
        lock.acquire()
    lock.release()  # releasing an unheld lock is a no-op
    with pytest.raises(FileNotFoundError):
        FileLock(tmp_path / "missing-dir" / "lock").acquire()


def test_only_the_lock_module_imports_a_platform_lock_and_only_per_platform():
    """``fcntl`` is POSIX-only: importing it anywhere else would break collection on Windows."""
    package = Path(pytest_vitabench.__file__).parent
    offenders = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "sys.platform" in ast.unparse(node.test):
                guarded |= {id(n) for n in ast.walk(node)}
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] in ("fcntl", "msvcrt") for n in names):
                where = f"{path.relative_to(package)}:{node.lineno}"
                if path.relative_to(package).as_posix() != "store/lock.py" or id(node) not in guarded:
                    offenders.append(where)
    assert offenders == []
