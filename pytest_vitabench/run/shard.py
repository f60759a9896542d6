"""Splitting one run across machines: which shard this process is, which items it runs, where it journals.

The split is a pure function of the selected items, so N processes that never talk agree on it. Its unit
is a *chain* (one user under one memory backend, all its subtasks and trials) because a backend's memory
is built up subtask after subtask and must stay in one process.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..llm.settings import LLMSettings
from ..runs.manifest import config_sha256
from ..runs.store import runs_root
from ..suite.fetch import file_sha256


@dataclass(frozen=True)
class Shard:
    """This process's part of a sharded run: shard ``index`` (1-based) of ``count``; ``source`` says where
    that came from (``--vita-shard`` or the job runner's variables)."""

    index: int
    count: int
    source: str = "--vita-shard"

    @property
    def label(self) -> str:
        """``shard 2/4``: the prefix of whatever a shard says about itself."""
        return f"shard {self.index}/{self.count}"

    def divide(self, limit: int) -> int:
        """This shard's part of a run-wide limit (``0``: unlimited stays unlimited): ``ceil(limit / count)``,
        so no shard gets nothing; the whole run may then exceed the limit by at most ``count - 1``."""
        return 0 if limit <= 0 else -(-limit // self.count)


class ShardError(ValueError):
    """``--vita-shard`` or the job runner's variables do not name a shard; the message says why."""


def resolve_shard(spec: str, environ: Mapping[str, str] | None = None) -> Shard | None:
    """The shard this process is (``None``: unsharded), from ``--vita-shard`` (``off``, ``auto``, ``auto/N`` or
    ``I/N``, already checked by its parser) and the job runner's variables in ``environ``.

    Under ``auto`` the shard comes from a Slurm array (``SLURM_ARRAY_TASK_ID`` counted from
    ``SLURM_ARRAY_TASK_MIN``, of ``SLURM_ARRAY_TASK_COUNT``) or a Kubernetes Indexed Job
    (``JOB_COMPLETION_INDEX``, 0-based, with the count given as ``auto/N``: Kubernetes does not pass it on).

    Raises:
        ShardError: A job runner's index without a count, or an index outside the count.
    """
    env = os.environ if environ is None else environ
    if spec == "off":
        return None
    head, _, count_text = spec.partition("/")
    if head != "auto":
        return _checked(int(head), int(count_text), "--vita-shard")
    given_count = int(count_text) if count_text else None
    if env.get("JOB_COMPLETION_INDEX", "").strip():
        index = _env_int(env, "JOB_COMPLETION_INDEX") + 1
        if given_count is None:
            raise ShardError(f"JOB_COMPLETION_INDEX={env['JOB_COMPLETION_INDEX']} says this is a shard of a "
                             "Kubernetes Indexed Job, but not of how many: give --vita-shard auto/N with N = the "
                             "Job's completions (or --vita-shard off to run every item here)")
        return _checked(index, given_count, "JOB_COMPLETION_INDEX (0-based) with --vita-shard auto/N")
    if env.get("SLURM_ARRAY_TASK_ID", "").strip():
        first = _env_int(env, "SLURM_ARRAY_TASK_MIN") if env.get("SLURM_ARRAY_TASK_MIN", "").strip() else 0
        index = _env_int(env, "SLURM_ARRAY_TASK_ID") - first + 1
        count = given_count
        if count is None and env.get("SLURM_ARRAY_TASK_COUNT", "").strip():
            count = _env_int(env, "SLURM_ARRAY_TASK_COUNT")
        if count is None:
            raise ShardError(f"SLURM_ARRAY_TASK_ID={env['SLURM_ARRAY_TASK_ID']} says this is a Slurm array task, "
                             "but SLURM_ARRAY_TASK_COUNT is not set: give --vita-shard auto/N (or off)")
        return _checked(index, count, "SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1, of SLURM_ARRAY_TASK_COUNT")
    if given_count is not None:
        raise ShardError(f"--vita-shard {spec}: no job runner index in the environment (JOB_COMPLETION_INDEX or "
                         "SLURM_ARRAY_TASK_ID); give the shard as I/N")
    return None


def _env_int(env: Mapping[str, str], name: str) -> int:
    try:
        return int(env[name].strip())
    except ValueError:
        raise ShardError(f"{name} must be a whole number, got {env[name]!r}") from None


def _checked(index: int, count: int, source: str) -> Shard:
    if not 1 <= index <= count:
        raise ShardError(f"shard {index} of {count} (from {source}) is outside 1..{count}")
    return Shard(index=index, count=count, source=source)


@dataclass(frozen=True)
class Chain:
    """One user under one memory backend, the unit that stays in one shard: ``key`` is ``(suite file as the
    node ids name it, user key, memory backend)``, machine-independent; ``history_size`` the user's data in
    bytes (``0``: unknown)."""

    key: tuple[str, str, str]
    items: int
    history_size: int = 0


def chain_weights(chains: Iterable[Chain]) -> dict[tuple[str, str, str], float]:
    """Expected work of each chain: its items, each heavier the longer the user's history (memory updates and
    renders grow with it), relative to the mean history so the weight does not depend on the unit."""
    chains = list(chains)
    sizes = [c.history_size for c in chains if c.history_size > 0]
    mean = sum(sizes) / len(sizes) if sizes else 0.0
    return {c.key: c.items * (1.0 + (c.history_size / mean if mean else 0.0)) for c in chains}


def assign_chains(chains: Iterable[Chain], count: int) -> dict[tuple[str, str, str], int]:
    """Each chain's shard (1-based): heaviest first, each to the least loaded shard, ties by the lower index
    (LPT scheduling; the order never depends on the collection order)."""
    weights = chain_weights(chains)
    loads = [0.0] * count
    out: dict[tuple[str, str, str], int] = {}
    for key in sorted(weights, key=lambda k: (-weights[k], k)):
        shard = min(range(count), key=lambda n: (loads[n], n))
        loads[shard] += weights[key]
        out[key] = shard + 1
    return out


Item = TypeVar("Item")


@dataclass
class Share(Generic[Item]):
    """What one shard keeps of the selected items (``kept`` in collection order, items of no chain on
    shard 1) and how many chained items the whole run and this shard select."""

    kept: list[Item]
    dropped: list[Item]
    selected_in_run: int
    selected_here: int


def take_share(items: Sequence[Item], shard: Shard,
               chain_of: Callable[[Item], tuple[tuple[str, str, str], int] | None]) -> Share[Item]:
    """This shard's items: whole chains, assigned by :func:`assign_chains`.

    Args:
        chain_of: An item's chain key and its user's history size, or ``None`` for an item of no chain (a
            project's other tests, which run once, on shard 1).
    """
    counts: dict[tuple[str, str, str], int] = {}
    sizes: dict[tuple[str, str, str], int] = {}
    chains = [chain_of(item) for item in items]
    for chain in chains:
        if chain is not None:
            key, size = chain
            counts[key] = counts.get(key, 0) + 1
            sizes[key] = size
    owner = assign_chains([Chain(key, n, sizes[key]) for key, n in counts.items()], shard.count)
    mine = [shard.index == 1 if chain is None else owner[chain[0]] == shard.index for chain in chains]
    kept = [item for item, keep in zip(items, mine, strict=True) if keep]
    dropped = [item for item, keep in zip(items, mine, strict=True) if not keep]
    here = sum(1 for chain, keep in zip(chains, mine, strict=True) if keep and chain is not None)
    return Share(kept=kept, dropped=dropped, selected_in_run=sum(counts.values()), selected_here=here)


def shard_loads(chains: Iterable[Chain], count: int) -> list[float]:
    """The expected work each shard gets (for the docs' balance figures and the header)."""
    chains = list(chains)
    weights = chain_weights(chains)
    loads = [0.0] * count
    for key, shard in assign_chains(chains, count).items():
        loads[shard - 1] += weights[key]
    return loads


#: The run-wide limits of :class:`~pytest_vitabench.llm.settings.LLMSettings` each shard divides by N.
SPLIT_LIMITS = ("rpm", "max_concurrency", "tpm")
#: The limits a shared limiter (``--vita-limits url``) holds for every shard: those are not split.
SHARED_LIMITS = ("rpm", "max_concurrency")


def split_limits(settings: LLMSettings, shard: Shard | None) -> LLMSettings:
    """``settings`` with this shard's part of each run-wide limit, so N shards stay within the run's limits."""
    if shard is None or shard.count == 1:
        return settings
    # with a shared limiter (Redis) every shard draws on the whole budget of the limits it holds
    split = [name for name in SPLIT_LIMITS if not (settings.limits_url and name in SHARED_LIMITS)]
    update = {name: shard.divide(getattr(settings, name)) for name in split if getattr(settings, name)}
    return settings.model_copy(update=update)


def derived_run_id(config_block: Mapping[str, Any], selection: Mapping[str, Any], invocation_dir: Path) -> str:
    """The run id every shard of a run derives alike: a hash of the scoring settings, the selection (paths,
    ``-k``, ``-m``, ``--deselect``) and the content of every suite file named on the command line.

    Two runs with the same settings and selection get the same id, so rerunning a shard journals into
    the same directory (the newest record of an item wins); give ``--vita-run-id`` to keep runs apart.
    """
    digest = hashlib.sha256(config_sha256(dict(config_block)).encode())
    digest.update(json.dumps(selection, sort_keys=True, default=str).encode())
    for arg in selection.get("args", []):
        path = Path(invocation_dir, str(arg).split("::", 1)[0])
        if path.is_file():
            digest.update(file_sha256(path).encode())
    return f"shards-{digest.hexdigest()[:12]}"


def run_directory(rootdir: Path, run_id: str, shard: Shard | None) -> Path:
    """``<rootdir>/.vitabench/runs/<run-id>`` (``/shard-I-of-N`` for a shard)."""
    base = runs_root(rootdir) / run_id
    return base / f"shard-{shard.index}-of-{shard.count}" if shard is not None else base
