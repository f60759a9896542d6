"""Shared, session-scoped generated suites (generation is deterministic, so sharing is safe)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pytest_vitabench.synth.config import preset
from pytest_vitabench.synth.generator import dumps, generate


@pytest.fixture(scope="session")
def small_suite() -> list[dict[str, Any]]:
    return generate(preset("small"))


@pytest.fixture(scope="session")
def paper_bytes() -> bytes:
    """The paper preset, generated once per test session."""
    return dumps(generate(preset("paper")))


@pytest.fixture
def small_copy(small_suite: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A private copy of the small suite, for breaking on purpose."""
    return copy.deepcopy(small_suite)
