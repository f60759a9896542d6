"""The shape of llm/: every limit behind the one seam of :mod:`pytest_vitabench.llm.limits`, so a new limit
is wired into the client in one module, not in ``client.py``; and every limiter waits through one loop."""

from __future__ import annotations

import ast

from _paths import REPO_ROOT

PACKAGE = REPO_ROOT / "pytest_vitabench"
#: The limits the seam composes; only it builds them.
LIMITS = {"adaptive": "AdaptiveConcurrency", "ratelimit": "Limiter", "redis_limits": "RedisLimiter",
          "tokenrate": "TokenBudget"}


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
    # llm/__init__ re-exports the file limiter for users who build one themselves
    assert builders == {"AdaptiveConcurrency": {"llm/limits.py"}, "Limiter": {"llm/limits.py", "llm/__init__.py"},
                        "RedisLimiter": {"llm/limits.py"}, "TokenBudget": {"llm/limits.py"}}


def test_every_limiter_waits_through_one_loop():
    for name in ("ratelimit.py", "redis_limits.py", "tokenrate.py"):
        source = (PACKAGE / "llm" / name).read_text(encoding="utf-8")
        assert "while True" not in source and "raise LimiterTimeout(f\"no" not in source, name
        if name != "ratelimit.py":
            assert ("ratelimit", "wait_for") in set(_imported_names(PACKAGE / "llm" / name)), name
