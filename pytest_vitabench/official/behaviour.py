"""The one place where the run's style values become behaviour.

The run configuration keeps each deviation from the official harness as a value (``"default"`` or
``"official"``, as the report shows it). This module reads those values, once, into typed rules; each component
receives its rules and asks them a question (``rules.stop_ends_at_once``) instead of comparing strings. The rules'
defaults are this project's behaviour; the ``OFFICIAL_*`` instances are the official harness's.

What each official rule means:

* episode (``--vita-deviation episode``): the official orchestrator ends an episode at a stop token even beside tool
  calls (not run), gives an invalid agent message three attempts in all, lets tool-call arguments that are not a
  JSON object crash the run, and reruns a crashed run up to three more times (``run_task``'s ``max_retries``).
* metrics (``--vita-deviation metrics``): an item never judged counts as a failed trial, and every subtask is padded
  to ``max(k, trials)`` trials, as the official pass@k counts.
* rag (``--vita-deviation rag``): retrieved chunks in similarity order, else a whitespace keyword match, else every
  chunk (no budget); with an official source the official rag memory runs (:mod:`.rag`), and it summarises
  with the memory model whenever it has one.
* outcome (``--vita-deviation outcome``): the judge sees the last official write call that resolves in the raw
  environment, failed or not (:mod:`.outcome`), and no rubric may be "not applicable".
* agent prompt (``--vita-deviation agent-prompt``): the official rules without our coaching, with the
confirm-the-user-id
  rule; with an official source, the official wording itself (:mod:`.wording`).
* tools (``--vita-deviation search``, ``--vita-deviation tool-results``): the official ranking, keyword join and city
filter;
  the official tools' own answers and checks (:mod:`.tool_answers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..domains.base import ToolRules

#: The value that selects the official harness's behaviour, in every style option and in the profile.
OFFICIAL = "official"
#: The values of every style option: this project's behaviour, and the official harness's.
STYLES = ("default", OFFICIAL)


def is_official(value: Any) -> bool:
    """Whether a switch's value (``--vita-deviation KEY=official``) selects the official behaviour."""
    return value == OFFICIAL


@dataclass(frozen=True)
class EpisodeRules:
    """How an episode runs (``--vita-deviation episode``).

    Attributes:
        agent_attempts: Attempts at a valid agent message per turn (ours: the first and three retries).
        stop_ends_at_once: A stop token ends the episode even beside tool calls, which are not run.
        malformed_calls_crash: Tool-call arguments that are not a JSON object raise instead of answering an error.
        restarts: How many times a crashed episode starts again on a fresh environment.
        cap_ends_at_once: The hop that reaches ``max_steps`` ends the episode as ``max_steps`` whatever it was: the
            tool calls of an agent message at the cap are not run and a stop token in it does not count (the
            official count). Ours runs those calls (the records show what the agent did) without counting their
            results as a hop past the cap, and a stop at the cap still counts as one.
    """

    agent_attempts: int = 4
    stop_ends_at_once: bool = False
    malformed_calls_crash: bool = False
    restarts: int = 0
    cap_ends_at_once: bool = False


OFFICIAL_EPISODE = EpisodeRules(agent_attempts=3, stop_ends_at_once=True, malformed_calls_crash=True, restarts=3,
                                cap_ends_at_once=True)


@dataclass(frozen=True)
class MetricRules:
    """How the metrics count trials (``--vita-deviation metrics``).

    Attributes:
        unjudged_fail: An item that was never judged counts as a failed trial.
        pad_to_trials: Each subtask's trials are padded with failures to ``max(k, trials)``.
    """

    unjudged_fail: bool = False
    pad_to_trials: bool = False


OFFICIAL_METRICS = MetricRules(unjudged_fail=True, pad_to_trials=True)


@dataclass(frozen=True)
class RagRules:
    """How the ``rag`` memory reads (``--vita-deviation rag``).

    Attributes:
        similarity_order: Hits in similarity order; none: a whitespace keyword match, then every chunk.
        official_memory: With an official source the official rag memory runs, and it summarises with the
            memory model whenever it has one.
    """

    similarity_order: bool = False
    official_memory: bool = False


OFFICIAL_RAG = RagRules(similarity_order=True, official_memory=True)


@dataclass(frozen=True)
class OutcomeRules:
    """What the outcome judge is shown (``--vita-deviation outcome``).

    Attributes:
        official_inputs: The last resolvable official write (failed or not) beside the target entity, and every
            rubric must hold (none is "not applicable").
    """

    official_inputs: bool = False


OFFICIAL_OUTCOME = OutcomeRules(official_inputs=True)


@dataclass(frozen=True)
class PromptRules:
    """The agent's system prompt (``--vita-deviation agent-prompt``).

    Attributes:
        official_rules: The official rules, without our coaching, with the confirm-the-user-id rule.
        official_wording: The official harness's own wording, read from its source, when the run has one.
    """

    official_rules: bool = False
    official_wording: bool = False


OFFICIAL_PROMPT = PromptRules(official_rules=True, official_wording=True)


def episode_rules(style: Any) -> EpisodeRules:
    return OFFICIAL_EPISODE if is_official(style) else EpisodeRules()


def metric_rules(style: Any) -> MetricRules:
    """The metric rules of a ``--vita-deviation metrics`` value.

    Raises:
        ValueError: Not a style value.
    """
    if style not in STYLES:
        raise ValueError(f"metrics style must be one of {', '.join(STYLES)}, got {style!r}")
    return OFFICIAL_METRICS if is_official(style) else MetricRules()


def rag_rules(style: Any) -> RagRules:
    return OFFICIAL_RAG if is_official(style) else RagRules()


def outcome_rules(style: Any) -> OutcomeRules:
    return OFFICIAL_OUTCOME if is_official(style) else OutcomeRules()


def prompt_rules(style: Any) -> PromptRules:
    return OFFICIAL_PROMPT if is_official(style) else PromptRules()


def tool_rules(search_style: Any, tool_results: Any) -> ToolRules:
    return ToolRules(official_search=is_official(search_style), official_answers=is_official(tool_results))


@dataclass(frozen=True)
class Behaviour:
    """Every component's rules of one run, read from its configuration (any object with the style fields)."""

    episode: EpisodeRules
    metrics: MetricRules
    rag: RagRules
    outcome: OutcomeRules
    prompt: PromptRules
    tools: ToolRules

    @classmethod
    def of(cls, config: Any) -> Behaviour:
        return cls(episode=episode_rules(getattr(config, "episode_style", None)),
                   metrics=metric_rules(getattr(config, "metrics_style", None)),
                   rag=rag_rules(getattr(config, "rag_style", None)),
                   outcome=outcome_rules(getattr(config, "outcome_style", None)),
                   prompt=prompt_rules(getattr(config, "agent_prompt", None)),
                   tools=tool_rules(getattr(config, "search_style", None), getattr(config, "tool_results", None)))
