"""What a memory backend declares (:class:`MemorySpec`) and what a run gives it (:class:`MemoryOptions`).

Code outside ``memory/`` never names a backend: it asks the specs of the run's backends (docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..official.wording import OfficialWording, wording_for
from ..options.values import ALIASES
from .base import Memory

if TYPE_CHECKING:
    from ..llm.client import LLMClient
    from ..official.source import OfficialSource

    #: The user's copy of the harness, as the registry names it (memory/ reaches that package from here).
    HarnessSource = OfficialSource

#: The harness's own wording, read from the user's copy (:meth:`MemoryOptions.wording`): the one place in
#: ``memory/`` besides the rag backend that reads that copy.
HarnessWording = OfficialWording

#: Marks the options a ``module:Class`` or entry-point backend is not offered (they are the built-ins' wiring).
_BUILTIN_ONLY = {"builtin_only": True}


@dataclass(frozen=True)
class MemoryOptions:
    """The run's settings for its memory backends, built once from the run configuration.

    A ``module:Class`` or entry-point backend receives the ones its constructor names (all of them for
    ``**kwargs``), except those marked built-in only. ``None``: the option's default (``rag_threshold``: the
    embedding model's calibrated value).

    Attributes:
        llm_client: The run's :class:`~pytest_vitabench.llm.LLMClient` (memory and embedding calls).
        memory_model: The model of the ``agentic`` backend and of rag's summary (``--vita-memory-model``).
        cache_dir: The run's cache directory (embedding vectors under ``embeddings/``).
        language: ``en`` or ``zh`` (each suite's, when the runner builds a chain).
        rag_summary: Whether an LLM memory answers rag's ``read_preference_memory``.
        memory_model_args: The memory update's request settings.
        rag_summary_args: Rag's summary request settings.
        official_source: The official harness whose wording records are rendered in.

    The others are the ``--vita-`` options of the same names.
    """

    llm_client: LLMClient | None = None
    memory_model: str | None = None
    embedding_model: str | None = None
    embedding_base_url: str | None = None
    cache_dir: Path | str | None = None
    language: str = "en"
    rag_top_k: int | None = None
    rag_threshold: float | None = None
    rag_summary: bool = False
    rag_style: str = "default"
    full_context_max_tokens: int | None = None
    memory_model_args: dict[str, Any] = field(default_factory=dict, metadata=_BUILTIN_ONLY)
    rag_summary_args: dict[str, Any] = field(default_factory=dict, metadata=_BUILTIN_ONLY)
    official_source: OfficialSource | None = field(default=None, metadata=_BUILTIN_ONLY)

    def wording(self) -> OfficialWording | None:
        """The official wording of history records (with an official source), else ``None``."""
        return wording_for(self.official_source, self.language or "en") if self.official_source else None

    def for_custom(self) -> dict[str, Any]:
        """The options a ``module:Class`` or entry-point backend may receive, by name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.metadata.get("builtin_only")}


class Endpoint(NamedTuple):
    """A model a backend will call, for the preflight: ``kind`` is ``chat`` or ``embeddings``."""

    role: str
    kind: str
    model: str
    base_url: str | None


def official_aliases(name: str) -> tuple[str, ...]:
    """The official harness's names for the built-in backend ``name`` (declared in
    :data:`pytest_vitabench.options.values.ALIASES`: ``null`` is ``none``, ``rewrite`` is ``agentic``)."""
    return tuple(alias for alias, target in ALIASES.items() if target == name)


@dataclass(frozen=True)
class MemorySpec:
    """One memory backend, as its module's ``SPEC`` declares it.

    The questions about a run (``calls_llm``, ``endpoints``, ``comparability``) take its
    :class:`~pytest_vitabench.options.config.RunConfig`. What reports and the profile ask (``leaderboard`` to
    ``comparability``) is read from the built-ins only: a report may be read where a third-party backend is
    not installed.

    Attributes:
        name: What ``--vita-memory`` calls it, and its key in the report's metrics.
        build: The options to a zero-argument factory of fresh memories; checks what the backend needs up
            front (``ValueError`` naming the option to set or the package to install).
        aliases: The official names it answers to too (``null``, ``rewrite``).
        deterministic: Whether one memory chain serves every trial (its state depends on the data only, not
            on a trial's sampling): a bool, or a function of the options.
        calls_llm: Whether the run's chat endpoint serves it (the run then needs an LLM client and a key).
        endpoints: The models it will call, each checked once by the preflight.
        prompt_budget: The most tokens it puts in the agent's prompt (``None``: the history up to the
            full_context budget), for ``vitabench estimate``, which also reads ``shown`` (the text it shows
            for a subtask when known without running it), ``rewrites`` (one memory-model rewrite per subtask
            with new records) and ``embeds`` (the new records and the query are embedded).
        counts_tokens: Its budgets are token counts (the header names the tokenizer; the profile checks it).
        leaderboard: The published leaderboard reports it.
        paired_reference: Every other backend of a run is compared with it, paired (the floor and the ceiling).
        pivot: Its row in the terminal's table, lowest first (backends without one come last, by name).
        request_role: The LLM role whose request settings it sends (``memory``, ``rag_summary``).
        switches: The run settings only it reads: the profile counts their deviations only when it runs.
        comparability: Why its settings keep a run from the leaderboard (empty: they do not).
        official_file: The official harness's module whose wording its tools carry.
    """

    name: str
    build: Callable[[MemoryOptions], Callable[[], Memory]]
    aliases: tuple[str, ...] = ()
    deterministic: bool | Callable[[MemoryOptions], bool] = False
    calls_llm: Callable[[Any], bool] = lambda config: False
    endpoints: Callable[[Any], list[Endpoint]] = lambda config: []
    prompt_budget: Callable[[MemoryOptions], int | None] = lambda options: None
    shown: Callable[[Any], str] | None = None
    rewrites: bool = False
    embeds: bool = False
    counts_tokens: bool = False
    leaderboard: bool = False
    paired_reference: bool = False
    pivot: int | None = None
    request_role: str | None = None
    switches: tuple[str, ...] = ()
    comparability: Callable[[Any], list[str]] = lambda config: []
    official_file: str | None = None

    def is_deterministic(self, options: MemoryOptions) -> bool:
        return self.deterministic if isinstance(self.deterministic, bool) else self.deterministic(options)
