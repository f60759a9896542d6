"""How a setting is declared: :func:`setting` and its :class:`Setting` metadata, the structured options
(:data:`GROUPS`), the ``--help`` headings, and :class:`Part`, the base of each component's settings class.

Standard library only: pytest imports it, through :mod:`.settings`, in every session.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

from . import values

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
        optional_value: The option may be given without a value, meaning this one (``--vita-resume``); a value is
            then attached only (``--vita-resume=RUN``), so that the option never takes the next argument.
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


P = TypeVar("P", bound="Part")


class Part:
    """The settings one component owns (:mod:`.parts`): a light class whose fields are declared with
    :func:`setting`.

    :class:`~pytest_vitabench.options.settings.RunSettings` inherits every part, so a run's validated
    :class:`~pytest_vitabench.options.config.RunConfig` is each part too; :meth:`of` takes a part's frozen view
    of it, which is what the component receives. ``Part(**values)`` makes one directly (a command, a test): a
    field not given takes its declared default. Nothing is validated here: the run's configuration did that.
    """

    #: This part's field names, in declaration order (set for each subclass).
    NAMES: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Its own fields after its bases' (a composition of parts has every part's).
        own = [name for name in vars(cls).get("__annotations__", {})
               if isinstance(vars(cls).get(name), dataclasses.Field)]
        inherited = [name for base in reversed(cls.__mro__[1:]) if issubclass(base, Part) for name in base.NAMES]
        cls.NAMES = tuple(dict.fromkeys([*inherited, *own]))

    def __init__(self, **values: Any) -> None:
        unknown = set(values) - set(self.NAMES)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no settings {', '.join(sorted(unknown))}")
        for name in self.NAMES:
            object.__setattr__(self, name, values[name] if name in values else declared_default(type(self), name))

    @classmethod
    def of(cls: type[P], source: object) -> P:
        """The frozen view of this part's fields of ``source`` (a run's configuration, or any object with them)."""
        return cls(**{name: getattr(source, name) for name in cls.NAMES})

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((name, getattr(self, name)) for name in self.NAMES)

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}: a part's settings are frozen")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and dict(self.items()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{name}={value!r}' for name, value in self.items())})"


def declared_default(cls: type, name: str) -> Any:
    """The declared default of field ``name`` of ``cls`` (a factory is called: a fresh list or dict)."""
    declared = next(vars(base)[name] for base in cls.__mro__ if isinstance(vars(base).get(name), dataclasses.Field))
    if declared.default_factory is not dataclasses.MISSING:
        return declared.default_factory()
    return declared.default


def metadata(declared: Any) -> Setting:
    """The :class:`Setting` of a field declared with :func:`setting`."""
    return declared.metadata[_META]
