"""Fixtures shared by the plugin's own tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from _stub_llm import StubLLM


def _import_the_whole_plugin() -> None:
    """Import every module of the package once, before any test runs.

    ``pytester`` drops the modules first imported during an in-process run when the run ends, but the
    package objects keep attributes pointing to them. A module imported lazily by one inline run (say
    ``suite.integrity``) and again later is then two modules, each with its own ``SuiteError``, and whether
    an ``except`` matches depends on which test ran first. Modules imported before any snapshot survive.

    The same holds for the SDK: an inline run's preflight imports the SDK's HTTP library by itself, and a
    client built after that run would wrap a second copy of it, whose timeouts the SDK no longer recognises.
    """
    import importlib
    import pkgutil

    import pytest_vitabench

    for module in pkgutil.walk_packages(pytest_vitabench.__path__, "pytest_vitabench."):
        importlib.import_module(module.name)
    importlib.import_module("openai")
    for name in ("httpx", "httpcore", "httpx2", "httpcore2"):  # whichever the installed SDK uses
        try:
            package = importlib.import_module(name)
        except ImportError:
            continue
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            try:
                importlib.import_module(module.name)
            except ImportError:  # an optional backend (trio, h2, socks) that is not installed
                pass


_import_the_whole_plugin()

# `--vita-official-source auto` (the official profile's default) takes this first: the plugin's own tests run
# with our wording unless a test names an official source, so they behave alike with or without ../shared.
os.environ.setdefault("VITA_OFFICIAL_SOURCE", "none")
# `--vita-official-models auto` reads the official harness's variable first: a developer's own models.yaml must
# not change the requests the tests expect.
os.environ.pop("VITA_MODEL_CONFIG_PATH", None)


@pytest.fixture
def redis_url(tmp_path) -> Iterator[str]:
    """A real Redis server on 127.0.0.1 for the test (``tests/_redis.py``); skips where none is installed."""
    from _redis import start_redis

    yield from start_redis(tmp_path)


@pytest.fixture
def stub() -> Iterator[StubLLM]:
    """An OpenAI-compatible stub server on 127.0.0.1 (``tests/_stub_llm.py``), closed after the test."""
    from _stub_llm import StubLLM

    server = StubLLM()
    yield server
    server.close()
