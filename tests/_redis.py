"""A real Redis server for the tests of --vita-limits url: Debian's redis-server on 127.0.0.1 and a free port.

:func:`start_redis` backs the ``redis_url`` fixture of ``tests/conftest.py``; a test using it skips (with the
reason) where redis-server or the ``redis`` package is missing; .ci/run installs both.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

redis: Any
try:
    import redis
except ImportError:  # pragma: no cover - the dev extra installs it
    redis = None

REDIS_SERVER = shutil.which("redis-server")
SKIP_REASON = ("redis-server or the redis package is not installed (Debian: apt-get install redis-server; "
               "pip install '.[redis]')")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(tmp_path: Path) -> Iterator[str]:
    """``redis://127.0.0.1:PORT/0`` of a server started for the test (no persistence), stopped after it."""
    if REDIS_SERVER is None or redis is None:
        pytest.skip(SKIP_REASON)
    port = free_port()
    server = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(tmp_path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.time() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.time() > deadline:
                server.kill()
                pytest.fail("redis-server did not start within 10 s")
            time.sleep(0.05)
    yield url
    server.terminate()
    server.wait(timeout=10)
