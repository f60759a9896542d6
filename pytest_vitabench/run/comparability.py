"""Comparability: why a run's numbers can or cannot stand next to the published leaderboard.

:func:`comparability` reads the run's settings against the official profile's deviations
(:data:`pytest_vitabench.official.deviations.DEVIATIONS`) and the leaderboard's configuration; :func:`summary`
is the report's ``profile`` block and :func:`header_line` the terminal's one-line verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..memory.registry import BUILTIN_SPECS, leaderboard_names, specs_of

if TYPE_CHECKING:
    from ..memory.spec import MemorySpec

from ..domains import OFFICIAL_RESULT_DOMAINS
from ..official.behaviour import Behaviour
from ..official.deviations import DEVIATIONS
from ..options.values import TOOL_CHECKS, tool_checks

#: The reason a run with ``--vita-official-source none`` gives.
OWN_WORDING = "prompts are pytest-vitabench's own (--vita-official-source none)"



#: The reason when the official harness's models.yaml is unknown (:mod:`pytest_vitabench.official.models`).
NO_MODELS_YAML = ("request settings unknown: no official models.yaml (--vita-official-models FILE; the official "
                  "harness sends each role its model's entry: max_tokens, temperature, reasoning_effort ...)")


def comparability(config: Any, *, tokenizer: str = "cl100k_base", official_wording: bool = False,
                  official_models: bool = False) -> list[str]:
    """Why this run's numbers cannot stand next to the published leaderboard (empty: they can).

    The published leaderboard uses an LLM user simulator and an LLM rubric judge (gpt-4.1), the
    sliding-window judge with one vote, 4 trials, the official harness's behaviour for every deviation, and
    budgets in cl100k_base tokens; its requests carry the official wording (``official_wording``: an official
    source was read, see :mod:`pytest_vitabench.official.source`) and, for rag, the official embedding model and
    threshold at an endpoint.
    """
    reasons = []
    # A report read here may name a third-party backend that is not installed: only the built-ins declare these.
    specs = specs_of(config.memory, builtin_only=True)
    if not official_wording:
        reasons.append(OWN_WORDING)
    else:
        reasons.extend(_settings_reasons(config, official_models, specs))
    if config.judge_model == "rules":
        reasons.append("rules judge: offline")
    if config.user_model == "scripted":
        reasons.append("scripted user: offline")
    if config.judge_model != "rules" and (config.judge_mode != "window" or config.judge_votes != 1):
        reasons.append("LLM judge not the official sliding window with one vote")
    if config.user_wait_for_action:
        reasons.append("--vita-user-args wait-for-action changes the user simulator")
    if config.trials != 4:
        reasons.append(f"{config.trials} trial(s), the leaderboard averages 4")
    for dev in DEVIATIONS:
        value = getattr(config, dev.field)
        official = tool_checks(dev.option, dev.official) if dev.field == "tool_checks" else dev.official
        if dev.field == "judge_records":
            if config.judge_model != "rules" and value:
                reasons.append(dev.spelling("on"))
        elif dev.field == "judge_failures":
            if config.judge_model != "rules" and value != official:
                reasons.append(dev.spelling(value))
        elif dev.field == "outcome_style":
            if config.outcome_reward and value != official:
                reasons.append(dev.spelling(value))
        elif any(dev.field in spec.switches for spec in BUILTIN_SPECS.values()):
            if any(dev.field in spec.switches for spec in specs) and value != official:
                reasons.append(dev.spelling(value))
        elif value != official:
            shown = ("all" if value == list(TOOL_CHECKS) else ",".join(value)) if isinstance(value, list) else value
            reasons.append(dev.spelling(shown))
    if tokenizer != "cl100k_base" and any(memory.counts_tokens for memory in specs):
        reasons.append("memory budgets counted with the regex estimate, not cl100k_base")
    for memory in specs:
        reasons.extend(memory.comparability(config))
    others = [m for m in config.memory if m not in leaderboard_names()]
    if others and len(others) == len(config.memory):
        reasons.append(f"memory {', '.join(others)} is not on the leaderboard")
    return reasons


def _settings_reasons(config: Any, official_models: bool, specs: list[MemorySpec]) -> list[str]:
    # The agent's request settings are the model under test's (the official --agent-llm-args sets them too).
    overrides = [(option, getattr(config, field)) for option, field, in_use in (
        ("--vita-model-args user", "user_model_args", config.user_model != "scripted"),
        ("--vita-model-args judge", "judge_model_args", config.judge_model != "rules"),
        ("--vita-model-args memory", "memory_model_args",
         any("memory_model_args" in spec.switches for spec in specs))) if in_use]
    if config.user_model == "scripted" and config.judge_model == "rules":
        return []  # offline: already not comparable, and the agent's settings are the user's own choice
    if not official_models:
        return [NO_MODELS_YAML]
    return [f"{option} changes the models.yaml request settings" for option, value in overrides if value]


def summary(config: Any, *, tokenizer: str = "cl100k_base", official_wording: bool = False,
            official_models: bool = False) -> dict[str, Any]:
    """The report's ``profile`` block: the profile, every switch's value, and the comparability verdict."""
    reasons = comparability(config, tokenizer=tokenizer, official_wording=official_wording,
                            official_models=official_models)
    return {
        "name": config.profile,
        "switches": {dev.key: getattr(config, dev.field) for dev in DEVIATIONS},
        # --vita-deviation tool-results=official reaches these domains only; the others keep JSON answers. Its
        # messages are
        # read from the official source: without one (--vita-official-source none) every answer is ours.
        "official_tool_results_domains": list(OFFICIAL_RESULT_DOMAINS)
        if Behaviour.of(config).tools.official_answers and official_wording else [],
        "tokenizer": tokenizer,
        "comparable_with_leaderboard": not reasons,
        "not_comparable_because": reasons,
    }


def header_line(config: Any, *, tokenizer: str = "cl100k_base", official_wording: bool = False,
                official_models: bool = False, verbose: bool = False) -> str:
    """The terminal header's verdict: one short line, e.g. ``vitabench profile: default; not comparable with
    the leaderboard: 5 reasons (-v or the report)``; ``verbose``: every reason."""
    reasons = comparability(config, tokenizer=tokenizer, official_wording=official_wording,
                            official_models=official_models)
    if not reasons:
        verdict = "comparable with the leaderboard"
    elif verbose:
        verdict = "not comparable with the leaderboard (" + "; ".join(reasons) + ")"
    else:
        count = f"{len(reasons)} reason{'s' if len(reasons) > 1 else ''}"
        verdict = f"not comparable with the leaderboard: {count} (see -v or the report)"
    return f"vitabench profile: {config.profile}; {verdict}"
