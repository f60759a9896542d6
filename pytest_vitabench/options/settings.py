"""Every ``--vita-*`` setting: :class:`RunSettings` composes each component's part (:mod:`.parts`, where each
field is declared once: type, default, help, parser, scope), in the order of :data:`ORDER`.

The plugin registers the options from it, the commands build their ``--vita-*`` arguments from it, and
:class:`~pytest_vitabench.options.config.RunConfig` inherits its fields. Standard library and the stdlib-only
parsers only: pytest imports this module in every session, with or without a suite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import values
from .declare import GROUPS, HEADINGS, Group, Setting, metadata
from .parts import (
    AgentSettings,
    EndpointSettings,
    JudgeSettings,
    MemorySettings,
    OutputSettings,
    ProfileSettings,
    RunShapeSettings,
    UserSettings,
)
from .spelling import did_you_mean


class RunSettings(AgentSettings, UserSettings, JudgeSettings, MemorySettings, EndpointSettings, ProfileSettings,
                  RunShapeSettings, OutputSettings):
    """The settings of one benchmark run: every component's part (:mod:`.parts`), flat.

    A field with a ``group`` is a key of a structured option (``--vita-limits rpm=500``) rather than an option
    of its own. The fields' order, in ``--help``, the reference and the report's ``config`` block, is
    :data:`ORDER`.
    """


#: Every setting in ``--help`` order (the essentials first), which is also the key order of the report's
#: ``config`` block. A new setting is declared in its component's part and placed here.
ORDER: tuple[str, ...] = (
    "model", "memory", "trials", "report", "fail_under", "profile", "user_model", "judge_model", "memory_model",
    "base_url", "api_key_env", "embedding_model", "model_args", "user_model_args", "judge_model_args",
    "memory_model_args", "official_models", "full_context_max_tokens", "rag_top_k", "rag_threshold", "rag_summary",
    "embedding_base_url", "judge_mode", "judge_votes", "outcome_reward", "judge_batch", "batch_poll",
    "user_wait_for_action", "official_source", "judge_records", "judge_failures", "rag_style", "tool_checks",
    "agent_prompt", "outcome_style", "search_style", "tool_results", "episode_style", "metrics_style", "max_steps",
    "seed", "language", "strict", "concurrency", "rpm", "tpm", "max_concurrency", "rpm_window", "timeout",
    "circuit_breaker", "limits_url", "cache", "preflight", "resume", "shard", "run_id", "progress", "prices",
    "budget_usd",
    "baseline", "fail_regression", "failures", "early_stop",
)
if sorted(ORDER) != sorted(RunSettings.NAMES):  # a setting declared but not placed, or placed but not declared
    raise TypeError(f"options.settings.ORDER differs from the parts' settings: "
                    f"{sorted(set(ORDER) ^ set(RunSettings.NAMES))}")


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
    for name in ORDER:
        declared = getattr(RunSettings, name)
        # A factory's value (a list, a dict) is no ini text; it is not called here, so registering the
        # options imports nothing more.
        default = None if declared.default is dataclasses.MISSING else declared.default
        out.append(SettingSpec(name=name, meta=metadata(declared), default=default))
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
