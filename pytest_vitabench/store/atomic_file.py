"""Writing a file so that readers see the old file or the whole new one, never a torn write.

The one way the plugin replaces a file other processes may read at the same time.
"""

from __future__ import annotations

import os
import uuid


def write_atomic(path: str | os.PathLike[str], data: bytes, *, durable: bool = False) -> None:
    """Replace ``path`` with ``data`` in one step; its folder must exist.

    The temporary file is beside the target (a rename within one file system), unique across processes
    and threads, and made with mode 0666 less the umask (``tempfile`` makes private 0600 files, which a
    shared cache or a report must not be). On failure it is removed and the target left as it was.

    Args:
        durable: ``fsync`` before the rename, so that a power loss leaves the old file or the new one
            (a report); without it a crash of the machine may leave an empty file, which readers of
            caches and blobs treat as a miss.

    Raises:
        OSError: The file could not be written (the folder is missing, the disk is full...).
    """
    target = os.fspath(path)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
