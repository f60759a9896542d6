"""The shape of llm/: every limit, the circuit breakers and the retry policy behind the one seam of
:mod:`pytest_vitabench.llm.limits`, so a new limit is wired into the client in one module, not in
``client.py``; and every limiter waits through one loop."""

from __future__ import annotations

import ast

from _paths import REPO_ROOT

PACKAGE = REPO_ROOT / "pytest_vitabench"
#: The limits the seam composes; only it builds them.
LIMITS = {"adaptive": "AdaptiveConcurrency", "ratelimit": "RedisSlots", "tokenrate": "TokenBudget",
          "endpoints": "CircuitBreaker", "retry": "Backoff"}


def _imported_names(path):
    """``(module, name)`` of every ``from ... import name`` in a file, the module without its dots."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                yield (node.module or "").rsplit(".", 1)[-1], alias.name


def test_only_the_limits_seam_builds_the_limits():
    builders = {}
    for path in PACKAGE.rglob("*.py"):
        for module, name in _imported_names(path):
            if LIMITS.get(module) == name:
                builders.setdefault(name, set()).add(path.relative_to(PACKAGE).as_posix())
    assert builders == {name: {"llm/limits.py"} for name in LIMITS.values()}


def test_the_client_leaves_breakers_and_retries_to_the_seam():
    imported = set(_imported_names(PACKAGE / "llm" / "client.py"))
    assert not {name for module, name in imported if module == "retry"}
    assert not {("endpoints", "CircuitBreaker"), ("endpoints", "CircuitOpen")} & imported


def test_every_limiter_waits_through_one_loop():
    for name in ("ratelimit.py", "tokenrate.py"):
        source = (PACKAGE / "llm" / name).read_text(encoding="utf-8")
        assert "while True" not in source and "raise LimiterTimeout(f\"no" not in source, name
        if name != "ratelimit.py":
            assert ("ratelimit", "wait_for") in set(_imported_names(PACKAGE / "llm" / name)), name
