"""An exclusive lock on a file, between processes and between threads, on POSIX and on Windows; and the
reads and writes of the small files that processes share.

Each :class:`FileLock` opens its own descriptor, so two locks on one path exclude each other even between
threads, and the operating system drops the lock of a process that dies, so a crashed worker never wedges
a run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

    def _lock(fd: int, poll_s: float) -> None:
        # msvcrt's own blocking mode gives up after ten seconds; waiting is the caller's business.
        while not _try_lock(fd):
            time.sleep(poll_s)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

    def _lock(fd: int, poll_s: float) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)  # the kernel wakes us: no polling


class FileLock:
    """An exclusive lock on ``path`` (created if missing); the holder may read and write the file through
    :attr:`fd` (the limiters keep their state in the locked file itself).

    Args:
        poll_s: How often a blocked :meth:`acquire` retries where the platform cannot wait (Windows).
    """

    def __init__(self, path: Path | str, *, poll_s: float = 0.002):
        self.path = Path(path)
        self.poll_s = poll_s
        self._fd: int | None = None

    def __repr__(self) -> str:
        return f"FileLock({str(self.path)!r}, held={self._fd is not None})"

    @property
    def fd(self) -> int:
        """The descriptor of the locked file (only while the lock is held)."""
        if self._fd is None:
            raise RuntimeError(f"{self!r} is not held")
        return self._fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, *, blocking: bool = True) -> bool:
        """Take the lock; with ``blocking=False`` return ``False`` at once if another holder has it."""
        if self._fd is not None:
            raise RuntimeError(f"{self!r} is already held (a FileLock is not reentrant)")
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        try:
            if blocking:
                _lock(fd, self.poll_s)
            elif not _try_lock(fd):
                os.close(fd)
                return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        """Let the lock go (nothing if it is not held)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            _unlock(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def read_at(fd: int, offset: int, size: int) -> bytes:
    """``size`` bytes at ``offset`` of a file whose lock the caller holds (``os.pread`` is POSIX-only)."""
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)


def write_at(fd: int, offset: int, data: bytes) -> None:
    """Write ``data`` at ``offset`` of a file whose lock the caller holds."""
    os.lseek(fd, offset, os.SEEK_SET)
    os.write(fd, data)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSONL file's whole lines; a line torn by a kill mid-write is skipped."""
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return
    with handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                continue
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield record
