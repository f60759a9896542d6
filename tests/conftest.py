"""Fixtures shared by the plugin's own tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from _stub_llm import StubLLM


@pytest.fixture
def stub() -> Iterator[StubLLM]:
    """An OpenAI-compatible stub server on 127.0.0.1 (``tests/_stub_llm.py``), closed after the test."""
    from _stub_llm import StubLLM

    server = StubLLM()
    yield server
    server.close()
