"""Every ``--vita-*`` setting, declared once in :class:`RunSettings`: type, default, help, parser, scope.

The plugin registers the options from it, the commands build their ``--vita-*`` arguments from it, and
:class:`~pytest_vitabench.options.config.RunConfig` inherits its fields. Standard library and the stdlib-only
parsers only: pytest imports this module in every session, with or without a suite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from . import values
from .spelling import did_you_mean

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
        official: The raw value ``--vita-profile official`` gives the setting when it is not set (a deviation from
            the official harness, see :data:`pytest_vitabench.official.deviations.DEVIATIONS`, or the official seed and
            source); under ``--vita-profile default`` it takes the field's default. ``None``: the same in both.
        optional_value: The option may be given without a value, meaning this one (``--vita-resume``).
        metavar: The option's value placeholder in ``--help``.
        group: The structured option this setting is a key of (:data:`GROUPS`); empty: an option of its own.
        key: Its key in that option; empty: the field name with dashes.
        heading: The ``--help`` heading of an option of its own (:data:`HEADINGS`).
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
    group: str = ""
    key: str = ""
    heading: str = "runs"

    def under(self, profile: str) -> Any:
        """The raw value a profile gives the setting when it is not set (``None``: the field's default)."""
        return {"official": self.official}.get(profile)


def setting(default: Any = None, *, default_factory: Callable[[], Any] | None = None, **meta: Any) -> Any:
    metadata = {_META: Setting(**meta)}
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def deviation(key: str, help: str) -> Any:
    """A switch between our behaviour (``default``) and the official harness's (``official``, what
    ``--vita-profile official`` sets): a key of ``--vita-deviation``."""
    return setting("default", official="official", parse=values.switch, group="deviation", key=key, help=help)


@dataclass(frozen=True)
class Group:
    """A structured option: ``--vita-NAME KEY=VALUE[,KEY=VALUE...]``, given any number of times (later keys win);
    each key is a setting of its own (its ``group``)."""

    name: str
    heading: str
    help: str
    metavar: str = "KEY=VALUE"

    @property
    def ini(self) -> str:
        return f"vita_{self.name}"

    @property
    def option(self) -> str:
        return "--" + self.ini.replace("_", "-")


#: The structured options, in ``--help`` order.
GROUPS: dict[str, Group] = {group.name: group for group in (
    Group("model_args", "models", "request settings of a role: agent (default), user, judge or memory",
          metavar="[ROLE:]ARGS"),
    Group("memory_args", "models", "memory settings: full-context-tokens, rag-top-k, rag-threshold, rag-summary, "
                                   "embedding-base-url"),
    Group("judge_args", "models", "LLM judge settings: mode (window|full), votes, outcome-reward, batch, batch-poll"),
    Group("user_args", "models", "LLM user settings: wait-for-action=on"),
    Group("deviation", "profile", "a profile switch (default|official): search, tool-results, episode, metrics, "
                                   "rag, outcome, agent-prompt, judge-failures, judge-records, tool-checks"),
    Group("limits", "runs", "budgets of the whole run: rpm, tpm, in-flight, window, timeout, circuit-breaker, url"),
)}

#: The ``--help`` headings, in order: the essentials first.
HEADINGS: dict[str, str] = {
    "essentials": "VitaBench 2.0 benchmark",
    "models": "VitaBench: models, memory and judge",
    "profile": "VitaBench: the official profile and the run's shape",
    "runs": "VitaBench: throughput, resuming and output",
}


class RunSettings:
    """The settings of one benchmark run: one field per setting, in ``--help`` order.

    A field with a ``group`` is a key of a structured option (``--vita-limits rpm=500``) rather than an option
    of its own.
    """

    # -- essentials: what to run and where the result goes
    model: str = setting(
        "reference", metavar="NAME", heading="essentials",
        help="agent: reference (default), literal, ... or an LLM name")
    memory: list[str] = setting(
        default_factory=lambda: ["full_context"], ini_default="full_context", parse=values.memory_list,
        metavar="LIST", heading="essentials",
        help="memory backends, comma-separated (default: full_context)")
    trials: int = setting(4, minimum=1, metavar="N", heading="essentials",
                          help="trials per subtask, the k of the metrics (default: 4)")
    report: str | None = setting(scope="run", metavar="PATH", heading="essentials",
                                 help="write the JSON report to PATH")
    fail_under: str | None = setting(
        scope="run", parse=values.fail_under, metavar="SPEC", heading="essentials",
        help="CI gate, e.g. avg@4=0.40,pass^4=0.20")
    profile: Literal["default", "official"] = setting(
        "default", choices=("default", "official"), parse=values.switch, metavar="NAME", heading="essentials",
        help="default, or official: the leaderboard's behaviour")
    # -- models and endpoints
    user_model: str = setting("scripted", metavar="NAME", heading="models",
                              help="user simulator: scripted (offline) or an LLM name")
    judge_model: str = setting("rules", metavar="NAME", heading="models",
                               help="judge: rules (offline) or an LLM name")
    memory_model: str | None = setting(
        metavar="NAME", heading="models", help="model of the agentic memory (default: the agent's)")
    base_url: str | None = setting(
        scope="endpoint", metavar="URL", heading="models", help="endpoint (default: $OPENAI_BASE_URL)")
    api_key_env: str = setting(
        "OPENAI_API_KEY", scope="endpoint", metavar="VAR", heading="models",
        help="variable holding the API key (default: OPENAI_API_KEY)")
    embedding_model: str | None = setting(
        metavar="NAME", heading="models",
        help="rag embeddings (default: local use-multilingual-v3)")
    #: Request settings sent with every agent request; part of the cache key.
    model_args: dict[str, Any] = setting(
        default_factory=dict, parse=values.model_args, group="model_args", key="agent",
        help="agent request settings, e.g. 'reasoning_effort=high,extra_body.enable_thinking=true'")
    user_model_args: dict[str, Any] = setting(default_factory=dict, parse=values.model_args, group="model_args",
                                              key="user", help="user simulator request settings")
    judge_model_args: dict[str, Any] = setting(default_factory=dict, parse=values.model_args, group="model_args",
                                               key="judge", help="LLM judge request settings")
    memory_model_args: dict[str, Any] = setting(default_factory=dict, parse=values.model_args, group="model_args",
                                                key="memory", help="memory model request settings")
    official_models: str | None = setting(
        "auto", parse=values.official_models, metavar="FILE", heading="models",
        help="the official models.yaml: FILE, auto (default) or none")
    # -- memory backends (--vita-memory-args)
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
    # -- the judge (--vita-judge-args) and the user simulator (--vita-user-args)
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
    user_wait_for_action: bool = setting(
        False, flag=True, group="user_args", key="wait-for-action",
        help="the LLM user does not stop before the agent's write action has completed or been refused")
    # -- the official profile's switches (--vita-deviation), and the run's shape
    official_source: str | None = setting(
        parse=values.official_source, official="auto", metavar="DIR", heading="profile",
        help="your copy of the official harness: DIR, auto or none")
    judge_records: bool = setting(
        True, official="off", parse=values.on_off, group="deviation",
        help="the LLM judge sees the final orders and bookings: on (default) or off (official)")
    judge_failures: Literal["unscored", "zero"] = setting(
        "unscored", official="zero", parse=values.judge_failures, choices=values.JUDGE_FAILURE_POLICIES,
        group="deviation",
        help="a rubric the judge failed to return: unscored (default: left out of the metrics) or zero (official)")
    rag_style: Literal["default", "official"] = deviation(
        "rag", "rag hits oldest first (default) or by similarity with keyword fallback and summary (official)")
    tool_checks: list[str] = setting(
        default_factory=lambda: list(values.TOOL_CHECKS), official="official", parse=values.tool_checks,
        group="deviation",
        help="our tool checks: all (default), official (none), or some of " + "+".join(values.TOOL_CHECKS))
    agent_prompt: Literal["default", "official"] = deviation(
        "agent-prompt", "agent system prompt: our rules (default) or the official one")
    outcome_style: Literal["default", "official"] = deviation(
        "outcome", "outcome-reward inputs: last successful write (default) or last resolvable write (official)")
    search_style: Literal["default", "official"] = deviation(
        "search", "search tools: keywords joined with spaces (default) or the official ranking (official)")
    tool_results: Literal["default", "official"] = deviation(
        "tool-results", "tool answers: JSON of the visible fields (default) or the official tools' text (official)")
    episode_style: Literal["default", "official"] = deviation(
        "episode", "###STOP### with tool calls runs them (default) or ends at once, with restarts (official)")
    metrics_style: Literal["default", "official"] = deviation(
        "metrics", "a subtask short of trials scores 0 (default) or each missing trial counts 0.0 (official)")
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
    # -- throughput and limits (--vita-limits)
    concurrency: int | Literal["auto"] = setting(
        "auto", scope="run", parse=values.concurrency, metavar="N", heading="runs",
        help="episodes in flight per process (default: auto)")
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
    resume: str | None = setting(
        scope="run", optional_value="latest", metavar="RUN", ini_default="", parse=values.resume, heading="runs",
        help="reuse the finished items of the last (or RUN's) run")
    shard: str = setting(
        "auto", scope="run", parse=values.shard, metavar="I/N", heading="runs",
        help="run shard I of N (default: auto, from the job runner)")
    run_id: str | None = setting(
        scope="run", parse=values.run_id, metavar="ID", heading="runs",
        help="the run's directory under .vitabench/runs/")
    progress: str = setting(
        "auto", scope="run", parse=values.progress, metavar="SECONDS", heading="runs",
        help="seconds between progress lines: auto, N or off")
    prices: str | None = setting(
        scope="run", metavar="SPEC", heading="runs",
        help="USD per 1M tokens: model=in/out,... or a file")
    baseline: str | None = setting(
        scope="run", metavar="RUN", heading="runs",
        help="a saved report to compare this run with")
    fail_regression: float | None = setting(
        scope="run", parse=values.regression_drop, metavar="DROP", heading="runs",
        help="fail on a significant Avg drop beyond DROP")
    failures: bool = setting(
        False, flag=True, scope="run", heading="runs", help="print the failure categories table")


@dataclass(frozen=True)
class SettingSpec:
    """One field of :class:`RunSettings` with its metadata."""

    name: str
    meta: Setting
    #: The field's default (``None`` for a field whose default comes from a factory).
    default: Any

    @property
    def ini(self) -> str:
        """The ini key of an option of its own; of a structured option's key: the group's."""
        if self.meta.group:
            return GROUPS[self.meta.group].ini
        return self.meta.ini or f"vita_{self.name}"

    @property
    def key(self) -> str:
        """The key in its structured option (``rpm``), or ``""``."""
        if not self.meta.group:
            return ""
        return self.meta.key or self.name.replace("_", "-")

    @property
    def option(self) -> str:
        """How a person names it: ``--vita-trials``, or ``--vita-limits rpm`` for a structured option's key."""
        if self.meta.group:
            return f"{GROUPS[self.meta.group].option} {self.key}"
        return "--" + self.ini.replace("_", "-")

    def spelling(self, value: object) -> str:
        """The text that sets it to ``value``: ``--vita-trials 2``, ``--vita-deviation search=official``,
        ``--vita-model-args judge:temperature=0``."""
        if self.meta.group == "model_args":
            return f"{GROUPS['model_args'].option} {self.key}:{value}"
        if self.meta.group:
            return f"{GROUPS[self.meta.group].option} {self.key}={value}"
        return f"{self.option} {value}"

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


@dataclass(frozen=True)
class Option:
    """One ``--vita-*`` option as a person types it: a setting of its own, or a structured option (a group)."""

    ini: str
    help: str
    heading: str
    metavar: str | None = None
    #: The setting behind an option of its own; ``None`` for a group.
    setting: SettingSpec | None = None

    @property
    def option(self) -> str:
        return "--" + self.ini.replace("_", "-")

    @property
    def group(self) -> Group | None:
        return GROUPS.get(self.ini.removeprefix("vita_")) if self.setting is None else None


def _options() -> tuple[Option, ...]:
    out = [Option(item.ini, item.meta.help, item.meta.heading, item.meta.metavar, item)
           for item in _SPECS if not item.meta.group]
    out += [Option(group.ini, group.help, group.heading, group.metavar) for group in GROUPS.values()]
    order = list(HEADINGS)
    return tuple(sorted(out, key=lambda option: order.index(option.heading)))


_OPTIONS = _options()


def options() -> tuple[Option, ...]:
    """Every ``--vita-*`` option, in ``--help`` order (by heading, the essentials first)."""
    return _OPTIONS


def group_keys(group: str) -> dict[str, SettingSpec]:
    """The settings of a structured option by key."""
    return {item.key: item for item in _SPECS if item.meta.group == group}


def _entries(raw: Any) -> list[str]:
    """A structured option's values: one per time it was given (a list), or an ini value (lines)."""
    if raw is None or raw == "":
        return []
    items = raw if isinstance(raw, (list, tuple)) else [raw]
    return [line.strip() for item in items for line in str(item).splitlines() if line.strip()]


def group_values(group: Group, raw: Any) -> dict[str, str]:
    """``KEY=VALUE`` pairs of a structured option's entries as raw text by setting name (later keys win).

    A part without ``=`` continues the previous value (``tool-checks=stock,past_dates``), unless it names an
    on/off key, which it turns on (``--vita-judge-args batch``).

    Raises:
        ValueError: An unknown key or a part that is no ``KEY=VALUE``, naming the option.
    """
    keys = group_keys(group.name)
    out: dict[str, str] = {}
    for entry in _entries(raw):
        if group.name == "model_args":
            role, sep, rest = entry.partition(":")
            key, text = (role.strip(), rest) if sep and role.strip() in keys else ("agent", entry)
            name = keys[key].name
            out[name] = _merged_args(out[name], text) if name in out else text
            continue
        last: str | None = None
        for part in (part.strip() for part in entry.split(",")):
            if not part:
                continue
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep and key in keys and keys[key].meta.flag:
                value = "on"
            elif not sep:
                if last is None:
                    raise ValueError(f"{group.option} takes KEY=VALUE pairs ({', '.join(keys)}); got {part!r}")
                out[last] += "," + part
                continue
            if key not in keys:
                raise ValueError(f"{group.option}: unknown key {key!r}; known: {', '.join(keys)}"
                                 f"{did_you_mean(key, list(keys))}")
            last = keys[key].name
            out[last] = value.strip()
    return out


def _merged_args(first: str, second: str) -> str:
    """Two ``--vita-model-args`` values of one role as one (later keys win); JSON stays JSON."""
    import json  # stdlib, and only when a role is given twice

    merged = {**values.model_args("--vita-model-args", first), **values.model_args("--vita-model-args", second)}
    return json.dumps(merged)


def read_settings(get: Callable[[str], Any]) -> dict[str, Any]:
    """Typed values of the settings that ``get`` (raw value by option ini key, ``None`` or blank: not given)
    gives.

    A deviation switch left unset takes its official value under ``--vita-profile official``.
    """
    raws = given(get)
    profile = parse(spec("profile"), raws.get("profile") or "default")
    out: dict[str, Any] = {}
    for item in _SPECS:
        raw = raws.get(item.name)
        if raw is None or raw == "":
            raw = item.meta.under(profile)
        if raw is not None and raw != "":
            out[item.name] = parse(item, raw)
    return out


def given(get: Callable[[str], Any]) -> dict[str, Any]:
    """The raw value of every setting ``get`` gives, by setting name (structured options split into keys)."""
    raws: dict[str, Any] = {}
    for option in _OPTIONS:
        raw = get(option.ini)
        if option.setting is not None:
            if raw is not None and raw != "":
                raws[option.setting.name] = raw
        else:
            assert option.group is not None
            raws.update(group_values(option.group, raw))
    return raws


def options_for(**fields: Any) -> dict[str, Any]:
    """The raw option values (by ini key, as :func:`read_settings` reads them) that set these settings, given
    by field name: ``options_for(rpm="500", trials="2")`` -> ``{"vita_limits": ["rpm=500"], "vita_trials": "2"}``."""
    out: dict[str, Any] = {}
    for name, value in fields.items():
        if value is None:
            continue
        item = spec(name)
        if item.meta.group:
            entry = f"{item.key}:{value}" if item.meta.group == "model_args" else f"{item.key}={value}"
            out.setdefault(item.ini, []).append(entry)
        else:
            out[item.ini] = value
    return out


def raw_options(get: Callable[[str], Any]) -> dict[str, Any]:
    """Every option's raw value keyed by ini key (for :class:`~pytest_vitabench.run.wiring.Benchmark`)."""
    return {option.ini: get(option.ini) for option in _OPTIONS}


def run_scoped() -> frozenset[str]:
    """Names of the settings that say how a run went (limits, cache, gates, output paths), not what it
    measured: a comparison of two runs' settings leaves them out."""
    return frozenset(item.name for item in specs() if item.meta.scope == "run")


@dataclass(frozen=True)
class Removed:
    """A spelling that no longer exists, and the one that replaced it."""

    option: str
    ini: str
    flag: bool
    replacement: str

    def message(self, ini: bool = False) -> str:
        return (f"{self.ini if ini else self.option} was replaced: use {self.replacement}"
                + (f" (ini key {self.replacement.split()[0][2:].replace('-', '_')})" if ini else ""))


def _removed() -> tuple[Removed, ...]:
    out = []
    for item in _SPECS:
        if not item.meta.group:
            continue
        old_ini = item.meta.ini or f"vita_{item.name}"
        old = "--" + old_ini.replace("_", "-")
        if old == GROUPS[item.meta.group].option:
            continue  # --vita-model-args stays: the agent's role
        value = "on" if item.meta.flag else "ARGS" if item.meta.group == "model_args" else "VALUE"
        out.append(Removed(old, old_ini, item.meta.flag, item.spelling(value)))
    return tuple(out)


#: The spellings of the options that are now keys of a structured option: a usage error naming the new one.
REMOVED: tuple[Removed, ...] = _removed()
