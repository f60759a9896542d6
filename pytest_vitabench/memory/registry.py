"""Resolve ``--vita-memory`` names to backend factories: built-ins, ``module:Class``, entry points.

Backends receive their dependencies as constructor keyword arguments taken from ``options`` (see
:data:`OPTION_KEYS`), which the plugin fills from its command-line options. A custom backend receives the
options its ``__init__`` names (all of them if it takes ``**kwargs``), so it can use the run's LLM client,
memory model, language or cache directory.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from ..option_values import ALIASES as ALIASES
from ..option_values import canonical_name as canonical_name
from ..option_values import parse_memory_list as parse_memory_list
from ..option_values import parse_threshold as parse_threshold
from .base import Memory

BUILTIN = ("none", "groundtruth", "full_context", "agentic", "rag")
#: Built-ins whose state depends on the data only: one memory serves every trial.
DETERMINISTIC = ("none", "groundtruth", "full_context", "rag")
ENTRY_POINT_GROUP = "vitabench.memory"
#: What ``options`` may carry:
#:
#: - ``llm_client``: the run's :class:`~pytest_vitabench.llm.LLMClient` (memory and embedding calls);
#: - ``memory_model``: the model of the ``agentic`` backend (``--vita-memory-model``, default: the agent's);
#: - ``embedding_model``, ``embedding_base_url``: ``--vita-embedding-model`` / ``--vita-embedding-base-url``;
#: - ``cache_dir``: the run's cache directory (embedding vectors under ``embeddings/``);
#: - ``language``: ``en`` or ``zh``;
#: - ``rag_top_k``, ``rag_threshold`` (``None``: the embedding model's calibrated value), ``chunk_tokens``,
#:   ``rag_summary`` (bool: an LLM memory answers ``read_preference_memory`` for ``rag``);
#: - ``agentic_max_tokens``, ``full_context_max_tokens``: token budgets.
OPTION_KEYS = ("llm_client", "memory_model", "embedding_model", "embedding_base_url", "cache_dir", "language",
               "rag_top_k", "rag_threshold", "chunk_tokens", "rag_summary", "agentic_max_tokens",
               "full_context_max_tokens", "rag_style")


def is_deterministic(name: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether one memory chain of ``name`` serves every trial (its state does not depend on sampling).

    Built-ins answer from :data:`DETERMINISTIC` (``rag`` only without its LLM summary); a custom backend
    (``module:Class`` or entry point) from its class attribute ``deterministic``, which must be ``True``
    itself (a property or any other value counts as no). An unknown or broken backend is not deterministic
    here; :func:`memory_factory` reports it.
    """
    name = canonical_name(name)
    if name == "rag":
        return not _rag_wants_summary(options or {})
    if name in BUILTIN:
        return name in DETERMINISTIC
    try:
        return _declared_deterministic(name)
    except ValueError:
        return False


@cache
def _declared_deterministic(name: str) -> bool:
    # Looked up once per name: the runner asks for every item, and entry points are slow to scan.
    backend = _load_custom(name)
    return backend is not None and inspect.getattr_static(backend, "deterministic", False) is True


def memory_factory(name: str, options: Mapping[str, Any] | None = None) -> Callable[[], Memory]:
    """Return a zero-argument factory for the backend ``name``.

    Checks what the backend needs up front, so a misconfiguration is a usage error before any item runs.

    Raises:
        ValueError: Unknown backend (with the list of known names), a backend that cannot load, or a
            backend missing a dependency (the message names the option to set or the package to install).
    """
    opts = dict(options or {})
    name = canonical_name(name)
    if name == "none":
        from .null import NoMemory

        return NoMemory
    if name == "groundtruth":
        from .groundtruth import GroundTruthMemory

        wording = _official_wording(opts)
        if wording is not None:
            return lambda: GroundTruthMemory(render=wording.render_preferences)
        return GroundTruthMemory
    if name == "full_context":
        from .full_context import DEFAULT_MAX_TOKENS, FullContextMemory

        budget = int(opts.get("full_context_max_tokens") or DEFAULT_MAX_TOKENS)
        wording = _official_wording(opts)
        if wording is not None:
            return lambda: FullContextMemory(max_tokens=budget, render=wording.render_records, empty="")
        return lambda: FullContextMemory(max_tokens=budget)
    if name == "agentic":
        return _agentic_factory(opts, who="the agentic memory")
    if name == "rag":
        return _rag_factory(opts)
    backend = _load_custom(name)
    if backend is not None:
        return _checked(name, backend, opts)
    from ..spelling import did_you_mean

    raise ValueError(f"--vita-memory: unknown memory backend {name!r}{did_you_mean(name, BUILTIN)}; available: "
                     f"{', '.join(BUILTIN)}, module:Class, or a '{ENTRY_POINT_GROUP}' entry point")


def _official_wording(opts: Mapping[str, Any]) -> Any:
    """The official wording of history records (``official_source`` among the options), else ``None``."""
    if not opts.get("official_source"):
        return None
    from ..official_wording import wording_for

    return wording_for(opts["official_source"], str(opts.get("language") or "en"))


def _load_custom(name: str) -> Any:
    """The class (or factory) of a ``module:Class`` or entry-point backend; ``None`` when no entry point has
    that name.

    Raises:
        ValueError: The module, attribute or entry point cannot be loaded (the message says which).
    """
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            return getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load memory backend {name!r}: {exc}") from exc
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as exc:  # a broken third-party package: say which entry point
                raise ValueError(f"cannot load memory backend {name!r} (entry point {ep.value!r}): {exc}") from exc
    return None


def _agentic_factory(opts: dict[str, Any], *, who: str) -> Callable[[], Any]:
    from .agentic import DEFAULT_MAX_TOKENS, AgenticMemory

    model = opts.get("memory_model")
    client = opts.get("llm_client")
    if not model:
        raise ValueError(f"{who} needs an LLM: set --vita-memory-model NAME (it defaults to the agent's "
                         f"--vita-model only when that is an LLM, not an offline built-in such as 'reference') "
                         f"and --vita-base-url for its endpoint")
    if client is None:
        raise ValueError(f"{who} needs an LLM client for the memory model {model!r}: set --vita-base-url "
                         f"(or $OPENAI_BASE_URL) and the key variable named by --vita-api-key-env")
    budget = int(opts.get("agentic_max_tokens") or DEFAULT_MAX_TOKENS)
    language = str(opts.get("language") or "en")
    wording = _official_wording(opts)
    params = dict(opts.get("memory_model_args") or {})
    return lambda: AgenticMemory(llm_client=client, memory_model=str(model), max_tokens=budget, language=language,
                                 wording=wording, params=params)


def _rag_factory(opts: dict[str, Any]) -> Callable[[], Any]:
    from ..embeddings import LocalModelUnavailable, check_available, default_threshold, get_embedder, local_spec
    from .chunking import DEFAULT_CHUNK_TOKENS
    from .rag import DEFAULT_TOP_K, RagMemory

    model = opts.get("embedding_model") or None
    spec = local_spec(model) if model else local_spec("use-multilingual-v3")
    if spec is not None:
        try:
            check_available(spec)
        except LocalModelUnavailable as exc:
            raise ValueError(f"the rag memory: {exc}") from None
    try:
        import numpy  # noqa: F401 - the vectors and their cosine similarity, whichever model embeds
    except ImportError:
        raise ValueError("the rag memory needs numpy, also with an endpoint embedding model: "
                         "pip install 'pytest-vitabench[rag]'") from None
    top_k = int(opts.get("rag_top_k") or DEFAULT_TOP_K)
    threshold = parse_threshold(opts.get("rag_threshold"))
    chunk_tokens = int(opts.get("chunk_tokens") or DEFAULT_CHUNK_TOKENS)
    language = str(opts.get("language") or "en")
    style = str(opts.get("rag_style") or "default")
    wants_summary = _rag_wants_summary(opts)
    wording = _official_wording(opts) if style == "official" else None
    if top_k < 1 or chunk_tokens < 1:
        raise ValueError(f"--vita-rag-top-k and the chunk size must be positive, got {top_k} and {chunk_tokens}")
    # Without the official wording the summary is an agentic memory with our prompt.
    summary = (_agentic_factory({**opts, "official_source": None}, who="--vita-rag-summary")
               if wants_summary and wording is None else None)

    from ..llm.settings import MissingAPIKey

    try:
        # Shared by every chain of the process; a local model loads on the first embedding, not here.
        embedder = get_embedder(model, base_url=opts.get("embedding_base_url"), llm_client=opts.get("llm_client"),
                                cache_dir=opts.get("cache_dir"), one_per_request=wording is not None)
    except MissingAPIKey as exc:
        raise ValueError(f"the rag memory's embedding model {model!r}: {exc}; or set --vita-embedding-base-url, "
                         f"or leave --vita-embedding-model unset for the local model") from None

    if wording is not None:
        from .rag_official import OfficialRagMemory

        official_threshold = default_threshold(model) if threshold is None else threshold
        summary_model = str(opts["memory_model"]) if wants_summary and opts.get("memory_model") else None
        client = opts.get("llm_client")
        if wants_summary and (summary_model is None or client is None):
            _agentic_factory(opts, who="--vita-rag-summary")  # raises, naming what is missing
        params = dict(opts.get("rag_summary_args") or {})
        return lambda: OfficialRagMemory(embedder=embedder, wording=wording, llm_client=client,
                                         summary_model=summary_model, top_k=top_k, threshold=official_threshold,
                                         chunk_tokens=chunk_tokens, params=params)

    def make() -> RagMemory:
        return RagMemory(embedder=embedder, top_k=top_k, threshold=threshold, chunk_tokens=chunk_tokens,
                         language=language, summarizer=summary() if summary else None, style=style)

    return make


def _rag_wants_summary(opts: Mapping[str, Any]) -> bool:
    """Whether rag gets an LLM summary: ``--vita-rag-summary``, or ``--vita-rag-style official`` with a memory
    model and a client (the official rag summarises with the agent's model whenever it has one)."""
    return bool(opts.get("rag_summary") or (opts.get("rag_style") == "official" and opts.get("memory_model")
                                            and opts.get("llm_client") is not None))


def _checked(name: str, cls: Any, opts: Mapping[str, Any]) -> Callable[[], Memory]:
    kwargs = _accepted_options(cls, opts)

    def make() -> Memory:
        memory = cls(**kwargs)
        if not isinstance(memory, Memory):
            raise TypeError(f"memory backend {name!r} must define update(records, context) and read(query)")
        return memory

    return make


def _accepted_options(cls: Any, opts: Mapping[str, Any]) -> dict[str, Any]:
    """The options a custom backend's constructor declares (every option for ``**kwargs``)."""
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):  # a builtin or C type without a signature: construct it bare
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return {k: v for k, v in opts.items() if k in OPTION_KEYS}
    names = {p.name for p in params if p.kind in (inspect.Parameter.KEYWORD_ONLY,
                                                  inspect.Parameter.POSITIONAL_OR_KEYWORD)}
    return {k: v for k, v in opts.items() if k in names and k in OPTION_KEYS}
