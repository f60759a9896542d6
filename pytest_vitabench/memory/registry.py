"""Resolve ``--vita-memory`` names to :class:`~.spec.MemorySpec`: built-ins, ``module:Class``, entry points.

A ``module:Class`` or ``vitabench.memory`` entry point names a spec or a :class:`~.base.Memory` class (or
factory); a class receives the :class:`~.spec.MemoryOptions` its ``__init__`` names, and declares
``deterministic = True`` as a class attribute when one memory serves every trial.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from functools import cached_property
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..options import user_code
from ..options.parts import MemorySettings
from ..options.spelling import did_you_mean
from ..options.values import MEMORY_CODE_KIND as USER_CODE_KIND
from . import agentic, full_context, groundtruth, null, rag
from .base import Memory
from .snapshots import SnapshotStore
from .spec import MemoryOptions, MemorySpec

if TYPE_CHECKING:
    from ..llm.client import LLMClient
    from .spec import HarnessSource

ENTRY_POINT_GROUP = "vitabench.memory"
#: The built-in backends, in the order the messages list them.
BUILTIN_SPECS: dict[str, MemorySpec] = {spec.name: spec for spec in (
    null.SPEC, groundtruth.SPEC, full_context.SPEC, agentic.SPEC, rag.SPEC)}
#: The backend that gives the agent nothing: for replays that must not depend on a memory.
NO_MEMORY = null.SPEC.name
#: The backend whose memory is the whole history (up to its budget): what ``vitabench estimate`` plays.
WHOLE_HISTORY = full_context.SPEC.name


def memory_spec(name: str) -> MemorySpec:
    """The spec of the backend ``name`` (a VitaBench 2.0 alias, a built-in, ``module:Class`` or an entry point).

    Raises:
        ValueError: Unknown backend (with the list of known names), or one that cannot load.
    """
    name = name.strip()
    for spec in BUILTIN_SPECS.values():
        if name == spec.name or name in spec.aliases:
            return spec
    backend = _load_custom(name)
    if backend is None:
        raise ValueError(f"--vita-memory: unknown memory backend {name!r}{did_you_mean(name, BUILTIN_SPECS)}; "
                         f"available: {', '.join(BUILTIN_SPECS)}, module:Class, or a '{ENTRY_POINT_GROUP}' "
                         "entry point")
    if isinstance(backend, MemorySpec):
        return backend
    # Only a plain class attribute True declares it (a property or any other value counts as no).
    return MemorySpec(name=name, build=lambda options: _checked(name, backend, options),
                      deterministic=inspect.getattr_static(backend, "deterministic", False) is True)


class RunMemories:
    """The memory backends of one run: each name resolved once, built with the run's :class:`~.spec.MemoryOptions`."""

    def __init__(self, options: MemoryOptions | None = None) -> None:
        self.options = options or MemoryOptions()
        self._specs: dict[str, MemorySpec] = {}

    @classmethod
    def for_run(cls, settings: MemorySettings, *, language: str, llm_client: LLMClient | None = None,
                cache_dir: Path | str | None = None, official_source: HarnessSource | None = None,
                role_settings: dict[str, dict[str, Any]] | None = None) -> RunMemories:
        """The run's backends (``--vita-memory``), each resolved and its factory made once now, so a missing model
        or package fails before any item.

        Their :class:`~.spec.MemoryOptions` are the memory settings and the objects built for the run: its
        client, cache directory, language, harness source and each LLM role's request settings
        (``role_settings``: ``memory``, ``rag_summary``).

        Raises:
            ValueError: As :meth:`factory`, naming the option to set or the package to install.
        """
        roles = role_settings or {}
        built: dict[str, Any] = {"language": language, "llm_client": llm_client, "cache_dir": cache_dir,
                                 "official_source": official_source, "memory_model_args": roles.get("memory", {}),
                                 "rag_summary_args": roles.get("rag_summary", {})}
        # The options named as settings take the settings' values; the built-ins' wiring comes from the run.
        memories = cls(MemoryOptions(**{f.name: built[f.name] if f.name in built else getattr(settings, f.name)
                                        for f in fields(MemoryOptions)}))
        for name in settings.memory:
            memories.factory(name)
        return memories

    @cached_property
    def snapshots(self) -> SnapshotStore | None:
        """The checkpoints of the backends' chains, under the run's cache directory (``None``: it has none)."""
        return SnapshotStore(self.options.cache_dir) if self.options.cache_dir else None

    def spec(self, name: str) -> MemorySpec:
        # Kept per run: the runner asks for every item, and entry points are slow to scan.
        if name not in self._specs:
            self._specs[name] = memory_spec(name)
        return self._specs[name]

    def factory(self, name: str, *, language: str | None = None) -> Callable[[], Memory]:
        """A zero-argument factory of fresh memories of ``name`` (``language``: the suite's, over the run's);
        ``ValueError`` as :func:`memory_spec`, or naming the option to set or the package to install."""
        options = self.options if language is None else replace(self.options, language=language)
        return self.spec(name).build(options)

    def deterministic(self, name: str) -> bool:
        """Whether one memory chain of ``name`` serves every trial."""
        return self.spec(name).is_deterministic(self.options)


def specs_of(names: Iterable[str], *, builtin_only: bool = False) -> list[MemorySpec]:
    """The specs of ``names`` (a run's ``memory``); ``builtin_only``: of the built-ins among them, for a report
    read where a third-party backend may not be installed (else ``ValueError`` as :func:`memory_spec`)."""
    if builtin_only:
        return [BUILTIN_SPECS[name] for name in names if name in BUILTIN_SPECS]
    return [memory_spec(name) for name in names]


def request_roles() -> list[str]:
    """The LLM roles of the built-in backends' requests (``memory``, ``rag_summary``), in declared order."""
    return [spec.request_role for spec in BUILTIN_SPECS.values() if spec.request_role]


def paired_references() -> list[str]:
    """The backends every other one is compared with when they run (the floor and the ceiling)."""
    return [spec.name for spec in BUILTIN_SPECS.values() if spec.paired_reference]


def leaderboard_names() -> list[str]:
    """The backends the published leaderboard reports."""
    return [spec.name for spec in BUILTIN_SPECS.values() if spec.leaderboard]


def pivot_key(name: str) -> tuple[int, str]:
    """Sort key of a backend's row in the terminal table: the built-ins from the floor to the ceiling, then
    the rest by name."""
    spec = BUILTIN_SPECS.get(name)
    return (spec.pivot if spec is not None and spec.pivot is not None else len(BUILTIN_SPECS), name)


def _load_custom(name: str) -> Any:
    """The object a ``module:Class`` or entry point names (``None``: no entry point has that name); a
    ``ValueError`` says which module, attribute or entry point cannot be loaded."""
    if ":" in name:
        return user_code.load(name, what=USER_CODE_KIND)
    declared = user_code.declared(name, what=USER_CODE_KIND)  # a spec --vita-memory module:SPEC loaded, by its name
    if declared is not None:
        return declared
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as exc:  # a broken third-party package: say which entry point
                raise ValueError(f"cannot load memory backend {name!r} (entry point {ep.value!r}): {exc}") from exc
    return None


def _checked(name: str, cls: Any, options: MemoryOptions) -> Callable[[], Memory]:
    """A factory of ``cls`` given the options its constructor declares (all of them for ``**kwargs``)."""
    kwargs = options.for_custom()
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):  # a builtin or C type without a signature: construct it bare
        kwargs = {}
    else:
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            named = {p.name for p in params if p.kind in (inspect.Parameter.KEYWORD_ONLY,
                                                          inspect.Parameter.POSITIONAL_OR_KEYWORD)}
            kwargs = {k: v for k, v in kwargs.items() if k in named}

    def make() -> Memory:
        memory = cls(**kwargs)
        if not isinstance(memory, Memory):
            raise TypeError(f"memory backend {name!r} must define update(records, context) and read(query)")
        return memory

    return make
