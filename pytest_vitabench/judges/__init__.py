"""Judges: ``rules`` (deterministic, offline, the default) and the LLM rubric judge by model name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Judge

if TYPE_CHECKING:
    from ..llm.client import LLMClient

__all__ = ["JUDGE_MODES", "Judge", "make_judge"]

JUDGE_MODES = ("window", "full")


def make_judge(name: str, *, client: LLMClient | None = None, mode: str = "window", outcome: bool = False,
               votes: int = 1, language: str = "en", params: dict[str, Any] | None = None,
               records: bool = True, outcome_style: str = "default", failures: str = "unscored",
               official_source: Any = None) -> Judge:
    """Return the judge for ``--vita-judge-model``.

    Args:
        name: ``rules`` for the offline judge; any other name is the judge model at the client's endpoint.
        client: The shared LLM client (required for an LLM judge).
        mode: ``window`` (sliding window, official default) or ``full`` (``--vita-judge-mode``).
        outcome: Add the outcome judge, reward ``min(trajectory, outcome)`` (``--vita-outcome-reward``).
        votes: Judge runs per item, per-rubric majority (``--vita-judge-votes``).
        language: Judge prompt language (``--vita-language``).
        params: Extra judge request parameters (``max_tokens``, ``reasoning_effort`` ...).
        records: LLM judge: show the final records (``--vita-judge-records``; the official judge does not).
        outcome_style: ``default`` or ``official`` inputs and semantics of the outcome judge
            (``--vita-outcome-style``).
        official_source: The user's copy of the official harness: the sliding-window judge sends its wording.
        failures: LLM judge: ``unscored`` or ``zero``, what a verdict the judge failed to return does to the
            reward (``--vita-judge-failures``).

    Raises:
        ValueError: An LLM judge without a client, an unknown mode, fewer than one vote, or LLM-only
            options given to the ``rules`` judge.
    """
    if name == "rules":
        if outcome or votes != 1:
            raise ValueError("--vita-outcome-reward and --vita-judge-votes need an LLM judge "
                             "(--vita-judge-model NAME); the rules judge is deterministic")
        from .rules import RulesJudge

        return RulesJudge()
    if client is None:
        raise ValueError(f"--vita-judge-model {name!r} is an LLM judge and needs an LLM client "
                         "(an endpoint: --vita-base-url / $OPENAI_BASE_URL and a key in --vita-api-key-env)")
    if mode not in JUDGE_MODES:
        raise ValueError(f"--vita-judge-mode must be one of {', '.join(JUDGE_MODES)}, got {mode!r}")
    from .llm_rubric import LLMRubricJudge
    from .outcome import OutcomeJudge

    return LLMRubricJudge(name, client=client, mode=mode, votes=votes, language=language,  # type: ignore[arg-type]
                          outcome=OutcomeJudge(name, client=client, language=language, params=params,
                                               style=outcome_style)
                          if outcome else None, params=params, records=records, failures=failures,
                          official_source=official_source)
