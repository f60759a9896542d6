"""Each component's settings: one light class per component, its fields declared with
:func:`~.declare.setting` (type, default, help, parser, scope, the structured option it is a key of).

:class:`~pytest_vitabench.options.settings.RunSettings` composes them into the run's flat settings; each
component receives its part's frozen view (:meth:`~.declare.Part.of`) and builds its own objects from it.
Standard library only: pytest imports it, through :mod:`.settings`, in every session.
"""

from __future__ import annotations

from typing import Any, Literal

from . import values
from .declare import Part, deviation, setting


class AgentSettings(Part):
    """The agent under test (``--vita-model``) and its requests."""

    model: str = setting(
        "reference", metavar="NAME", heading="essentials",
        help="agent: reference (default), literal, ... or an LLM name")
    #: Request settings sent with every agent request; part of the cache key.
    model_args: dict[str, Any] = setting(
        default_factory=dict, parse=values.model_args, group="model_args", key="agent",
        help="agent request settings, e.g. 'reasoning_effort=high,extra_body.enable_thinking=true'")


class UserSettings(Part):
    """The user simulator (``--vita-user-model``, ``--vita-user-args``)."""

    user_model: str = setting("scripted", metavar="NAME", heading="models",
                              help="user simulator: scripted (offline) or an LLM name")
    user_model_args: dict[str, Any] = setting(default_factory=dict, parse=values.model_args, group="model_args",
                                              key="user", help="user simulator request settings")
    user_wait_for_action: bool = setting(
        False, flag=True, group="user_args", key="wait-for-action",
        help="the LLM user does not stop before the agent's write action has completed or been refused")


class JudgeSettings(Part):
    """The judge (``--vita-judge-model``, ``--vita-judge-args``) and the profile switches only it reads."""

    judge_model: str = setting("rules", metavar="NAME", heading="models",
                               help="judge: rules (offline) or an LLM name")
    judge_model_args: dict[str, Any] = setting(default_factory=dict, parse=values.model_args, group="model_args",
                                               key="judge", help="LLM judge request settings")
    judge_mode: Literal["window", "full"] = setting(
        "window", choices=("window", "full"), group="judge_args", key="mode",
        help="window (sliding windows of 10 messages, as the official judge) or full (one call)")
    judge_votes: int = setting(
        1, minimum=1, group="judge_args", key="votes",
        help="judge runs per item; each rubric takes the majority, ties unmet (default: 1)")
    outcome_reward: bool = setting(
        False, flag=True, group="judge_args",
        help="also judge the last write action; reward = min(trajectory, outcome)")
    judge_batch: bool = setting(
        False, flag=True, scope="run", group="judge_args", key="batch",
        help="send the judge's requests through the Batch API (half the price, within 24 h)")
    batch_poll: float = setting(
        30, scope="run", parse=values.seconds, group="judge_args",
        help="seconds between status checks of a batch (default: 30)")
    judge_records: bool = setting(
        True, official="off", parse=values.on_off, group="deviation",
        help="the LLM judge sees the final orders and bookings: on (default) or off (official)")
    judge_failures: Literal["unscored", "zero"] = setting(
        "unscored", official="zero", parse=values.judge_failures, choices=values.JUDGE_FAILURE_POLICIES,
        group="deviation",
        help="a rubric the judge failed to return: unscored (default: left out of the metrics) or zero (official)")
    outcome_style: Literal["default", "official"] = deviation(
        "outcome", "outcome-reward inputs: last successful write (default) or last resolvable write (official)")


class MemorySettings(Part):
    """The memory backends (``--vita-memory``, ``--vita-memory-args``), their models and the rag switch."""

    memory: list[str] = setting(
        default_factory=lambda: ["full_context"], ini_default="full_context", parse=values.memory_list,
        metavar="LIST", heading="essentials",
        help="memory backends, comma-separated (default: full_context)")
    memory_model: str | None = setting(
        metavar="NAME", heading="models", help="model of the agentic memory (default: the agent's)")
    memory_model_args: dict[str, Any] = setting(default_factory=dict, parse=values.model_args, group="model_args",
                                                key="memory", help="memory model request settings")
    embedding_model: str | None = setting(
        metavar="NAME", heading="models",
        help="rag embeddings (default: local use-multilingual-v3)")
    full_context_max_tokens: int = setting(
        102_400, minimum=1, group="memory_args", key="full-context-tokens", ini="vita_full_context_tokens",
        help="token budget of full_context (default: 102400, the official value)")
    rag_top_k: int = setting(8, minimum=1, group="memory_args", help="rag: chunks per query (default: 8)")
    rag_threshold: float | None = setting(
        ini_default="auto", parse=values.rag_threshold, group="memory_args",
        help="rag: minimum cosine similarity, or auto (0.3 for endpoint models, calibrated for local ones)")
    rag_summary: bool = setting(
        False, flag=True, group="memory_args",
        help="rag: an LLM memory answers read_preference_memory with a summary of the hits")
    embedding_base_url: str | None = setting(
        group="memory_args", help="endpoint of --vita-embedding-model (default: --vita-base-url)")
    rag_style: Literal["default", "official"] = deviation(
        "rag", "rag hits oldest first (default) or by similarity with keyword fallback and summary (official)")


class EndpointSettings(Part):
    """Where and how the LLM roles are reached: endpoint, key, limits (``--vita-limits``), cache, prices, preflight."""

    base_url: str | None = setting(
        scope="endpoint", metavar="URL", heading="models", help="endpoint (default: $OPENAI_BASE_URL)")
    api_key_env: str = setting(
        "OPENAI_API_KEY", scope="endpoint", metavar="VAR", heading="models",
        help="variable holding the API key (default: OPENAI_API_KEY)")
    rpm: int = setting(0, scope="run", parse=values.limit, group="limits",
                       help="LLM requests per minute, all workers together (0: unlimited)")
    tpm: int = setting(0, scope="run", parse=values.token_limit, group="limits",
                       help="LLM tokens per minute, e.g. 30000 or 2M (0: unlimited)")
    max_concurrency: int = setting(0, scope="run", parse=values.limit, group="limits", key="in-flight",
                                   help="LLM requests in flight, all workers together (0: unlimited)")
    rpm_window: float = setting(60, scope="run", parse=values.seconds, group="limits", key="window",
                                help="seconds of the rpm and tpm windows (default: 60)")
    timeout: float = setting(120, scope="run", parse=values.seconds, group="limits",
                             help="seconds per LLM request (default: 120)")
    circuit_breaker: int = setting(
        5, scope="run", minimum=0, group="limits",
        help="stop calling an endpoint after N consecutive failures (default: 5; 0: never)")
    limits_url: str | None = setting(
        scope="run", parse=values.limits_url, group="limits", key="url",
        help="redis://host:port/db holding rpm and in-flight for every machine of the run")
    cache: Literal["judge", "all", "off"] = setting(
        "judge", scope="run", choices=("all", "judge", "off"), parse=values.cache_mode, metavar="WHAT",
        heading="runs", help="cache LLM calls: judge (default), all or off")
    preflight: Literal["on", "off"] = setting(
        "on", scope="run", choices=("on", "off"), metavar="on|off", heading="runs",
        help="check each LLM endpoint first (default: on)")
    prices: str | None = setting(
        scope="run", metavar="SPEC", heading="runs",
        help="USD per 1M tokens: model=in/out,... or a file")


class ProfileSettings(Part):
    """The profile, the official harness the user points at (source, models.yaml), and the switches
    (``--vita-deviation``) that the profile's rules read for the agent's prompt, the tools, the episode and
    the metrics."""

    profile: Literal["default", "official"] = setting(
        "default", choices=("default", "official"), parse=values.switch, metavar="NAME", heading="essentials",
        help="default, or official: the leaderboard's behaviour")
    official_source: str | None = setting(
        parse=values.official_source, official="auto", metavar="DIR", heading="profile",
        help="your copy of the official harness: DIR, auto or none")
    official_models: str | None = setting(
        "auto", parse=values.official_models, metavar="FILE", heading="models",
        help="the official models.yaml: FILE, auto (default) or none")
    tool_checks: list[str] = setting(
        default_factory=lambda: list(values.TOOL_CHECKS), official="official", parse=values.tool_checks,
        group="deviation",
        help="our tool checks: all (default), official (none), or some of " + "+".join(values.TOOL_CHECKS))
    agent_prompt: Literal["default", "official"] = deviation(
        "agent-prompt", "agent system prompt: our rules (default) or the official one")
    search_style: Literal["default", "official"] = deviation(
        "search", "search tools: keywords joined with spaces (default) or the official ranking (official)")
    tool_results: Literal["default", "official"] = deviation(
        "tool-results", "tool answers: JSON of the visible fields (default) or the official tools' text (official)")
    episode_style: Literal["default", "official"] = deviation(
        "episode", "###STOP### with tool calls runs them (default) or ends at once, with restarts (official)")
    metrics_style: Literal["default", "official"] = deviation(
        "metrics", "a subtask short of trials scores 0 (default) or each missing trial counts 0.0 (official)")


class RunShapeSettings(Part):
    """What runs and how: trials, steps, seeds, language, data checks, concurrency, shards, resuming."""

    trials: int = setting(4, minimum=1, metavar="N", heading="essentials",
                          help="trials per subtask, the k of the metrics (default: 4)")
    max_steps: int = setting(
        100, minimum=2, official=300, metavar="N", heading="profile",
        help="message hops per subtask (default: 100; official: 300)")
    seed: int = setting(0, minimum=-(2 ** 63), ini_default="", official=300, metavar="N", heading="profile",
                        help="base seed of the trials (default: 0; official: 300)")
    language: Literal["auto", "en", "zh"] = setting(
        "auto", choices=("auto", "en", "zh"), metavar="LANG", heading="profile",
        help="prompt language: auto (default), en or zh")
    strict: bool = setting(
        False, flag=True, heading="profile", help="out-of-order data is an error, not a warning")
    concurrency: int | Literal["auto"] = setting(
        "auto", scope="run", parse=values.concurrency, metavar="N", heading="runs",
        help="episodes in flight per process (default: auto)")
    resume: str | None = setting(
        scope="run", optional_value="latest", metavar="RUN", ini_default="", parse=values.resume, heading="runs",
        help="reuse the latest run's finished items (=RUN: RUN's)")
    shard: str = setting(
        "auto", scope="run", parse=values.shard, metavar="I/N", heading="runs",
        help="run shard I of N (default: auto, from the job runner)")
    run_id: str | None = setting(
        scope="run", parse=values.run_id, metavar="ID", heading="runs",
        help="the run's directory under .vitabench/runs/")


class OutputSettings(Part):
    """What the run writes and gates on: the report, progress lines, the baseline, the CI gates."""

    report: str | None = setting(scope="run", metavar="PATH", heading="essentials",
                                 help="write the JSON report to PATH")
    fail_under: str | None = setting(
        scope="run", parse=values.fail_under, metavar="SPEC", heading="essentials",
        help="CI gate, e.g. avg@4=0.40,pass^4=0.20")
    progress: str = setting(
        "auto", scope="run", parse=values.progress, metavar="SECONDS", heading="runs",
        help="seconds between progress lines: auto, N or off")
    baseline: str | None = setting(
        scope="run", metavar="RUN", heading="runs",
        help="a saved report to compare this run with")
    fail_regression: float | None = setting(
        scope="run", parse=values.regression_drop, metavar="DROP", heading="runs",
        help="fail on a significant Avg drop beyond DROP")
    failures: bool = setting(
        False, flag=True, scope="run", heading="runs", help="print the failure categories table")
    budget_usd: float | None = setting(
        scope="run", parse=values.budget_usd, metavar="USD", heading="runs",
        help="stop starting items before the run's spend passes USD")
    early_stop: str = setting(
        "off", scope="run", parse=values.early_stop_spec, metavar="MODE", heading="runs",
        help="stop once the gate is decided: exact, alpha=A or off")
