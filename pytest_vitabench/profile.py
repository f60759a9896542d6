"""Run profiles: the deviations from the official harness that can change a score, and comparability.

:data:`DEVIATIONS` is the single list the README table and the report follow; each one's switch, default and
official value are its setting's. Fixes of outright crashes and wrong states are not deviations and stay in
both profiles. :func:`comparability` says why a configuration's numbers cannot stand next to the leaderboard.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .memory.registry import BUILTIN_SPECS, leaderboard_names, specs_of

if TYPE_CHECKING:
    from .memory.spec import MemorySpec

from .domains import OFFICIAL_RESULT_DOMAINS
from .official.behaviour import Behaviour
from .option_values import TOOL_CHECKS as TOOL_CHECKS
from .option_values import tool_checks
from .settings import spec


@dataclass(frozen=True)
class Deviation:
    """One score-relevant difference from the official harness, on the setting ``field``."""

    field: str
    official_does: str
    we_do: str
    why: str

    @property
    def option(self) -> str:
        return spec(self.field).option

    @property
    def key(self) -> str:
        """Its key in ``--vita-deviation`` (``search``), or its own option's name (``max_steps``)."""
        return spec(self.field).key or self.field

    def spelling(self, value: Any) -> str:
        """How a person sets it to ``value``: ``--vita-deviation search=default``, ``--vita-max-steps 100``."""
        return spec(self.field).spelling(value)

    @property
    def official(self) -> Any:
        """The official harness's value, as ``--vita-profile official`` gives it (raw text)."""
        return spec(self.field).meta.official


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation("judge_records",
              "the LLM judge sees the trajectory only (its database field is always empty)",
              "the LLM judge also sees the orders, bookings and reservations as they stand at the end",
              "a judge that cannot see the database credits orders the agent only claimed or that later failed"),
    Deviation("judge_failures",
              "a rubric the LLM judge never returned a readable verdict for keeps its initial state, unmet: the "
              "item scores 0",
              "such a rubric, a rubric missing from the reply and a verdict its own justification contradicts are "
              "judge failures; an item whose reward hangs on one is unscored: reported and counted in its own "
              "column, left out of the metrics",
              "a judge failure is not the agent's failure; scoring it 0 lowers the agent's score by the judge's "
              "error rate"),
    Deviation("rag_style",
              "hits ordered by similarity; no hit: a whitespace keyword search, then an LLM summary of all "
              "chunks (or a dump); read_preference_memory returns that summary",
              "hits shown oldest first; no hit: the newest top_k chunks; read_preference_memory returns the "
              "newest 4,096 tokens (no LLM)",
              "chronological hits show which of two contradicting records is newer; keyword search cannot split "
              "Chinese; the summary re-reads every chunk at every update"),
    Deviation("tool_checks",
              "tools accept calls the data model allows: no stock check (delivery, in-store), past times for "
              "reservations and travel, products of any store, any attributes length, arguments untyped, "
              "reservations whatever enable_reservation says, cancellations of delivered or consumed orders, "
              "delivery orders without products",
              "each of those is refused with a tool error: " + ", ".join(TOOL_CHECKS),
              "an accepted call that no real service would accept rewards a wrong trajectory"),
    Deviation("max_steps",
              "300 hops per subtask (the CLI's default; the paper reports no limit); reaching it scores 0",
              "100 hops per subtask; reaching it scores 0",
              "the built-in agents finish in under 30 hops; 100 bounds the cost of a looping LLM agent"),
    Deviation("agent_prompt",
              "the official rules only, including: confirm the user id with the user before using it",
              "adds 'later evidence overrides earlier evidence' and, on proactive subtasks, 'ask for it or look "
              "it up with the tools first'; drops the contradictory confirm-the-user-id rule (the profile shown "
              "is the signed-in account)",
              "the official prompt tells the agent both to use the profile's user id directly and to confirm it"),
    Deviation("outcome_style",
              "--vita-judge-args outcome-reward judges the last resolvable write call (even a failed or cancelled one) "
              "against the target entity and the chosen one; every rubric must hold of the outcome",
              "judges the last successful write as it stands at the end, shows the chosen entity only, and lets "
              "a rubric about the conversation be 'not applicable' (met)",
              "a failed call is not an outcome; a rubric no entity can show would fail every outcome"),
    Deviation("search_style",
              "search keywords joined with no separator ('spicy','noodles' -> 'spicynoodles'); the candidate text "
              "glues a store's or hotel's name to its first tag; punctuation stripped; ties in database order; "
              "candidates sharing a text all show the last of them; a city or route matches at partial ratio 40",
              "keywords joined with spaces over 'name tag tag' texts; ties by id; a city matches at 80 after "
              "dropping a 'city' suffix; flights and trains by departure time",
              "joined keywords and glued names rank the wrong candidates first; a 40 city bar lets unrelated "
              "cities through"),
    Deviation("tool_results",
              "tools answer with their records' own string forms (Python reprs: 'Store(name=..., tags=[...])'); a "
              "failed precondition is plain text, not an error; their own checks, order and state changes (a "
              "delivered order can be cancelled, a cancelled one modified)",
              "JSON of each record's visible fields; every refusal is a counted tool error",
              "JSON is what a tool-calling model is trained on; a refusal the agent can tell from a result is "
              "counted; the official text of a loaded order shows its raw product dicts"),
    Deviation("episode_style",
              "an agent message with ###STOP### ends the subtask even when it also calls tools (they never run); "
              "3 attempts at a non-empty agent message; a crash, or tool-call arguments that are not a JSON "
              "object, restarts the run up to 3 times (4 attempts)",
              "the tool calls next to ###STOP### run and the agent goes on; 4 attempts; a crash is an error at "
              "once; malformed arguments go back to the agent as a counted tool error",
              "an order placed together with the stop token is the agent's outcome; a restart re-rolls a crashed "
              "trial instead of reporting it"),
    Deviation("metrics_style",
              "subtask level: each missing trial of a subtask counts as a 0.0 reward (Avg@k and Pass@k keep the "
              "partial credit); a subtask without evaluation criteria is a unit of 0.0 rewards when a later "
              "subtask of that user was judged, and no unit otherwise",
              "a subtask with fewer than k finished trials scores 0 on all three metrics (counted in n_short); a "
              "subtask without criteria is reported as not judged and left out",
              "a partial run's Avg@k is not comparable with a full one's; a subtask nobody can judge is not the "
              "agent's failure"),
)

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
