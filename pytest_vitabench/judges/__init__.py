"""Judges: ``rules`` (deterministic, offline) now; LLM rubric judges by model name later."""

from __future__ import annotations

from .base import Judge


def make_judge(name: str) -> Judge:
    """Return the judge for ``--vita-judge-model``.

    Raises:
        ValueError: For an LLM judge name: LLM judges are not available in this version.
    """
    if name == "rules":
        from .rules import RulesJudge

        return RulesJudge()
    raise ValueError(f"--vita-judge-model {name!r}: LLM rubric judges are not available yet; use 'rules'")
