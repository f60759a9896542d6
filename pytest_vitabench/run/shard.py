"""Splitting one run across machines: which items a shard runs and where it journals (which shard this process
is: :meth:`~pytest_vitabench.options.config.RunConfig.process_shard`).

The split is a pure function of the selected items, so N processes that never talk agree on it. Its unit
is a *chain* (one user under one memory backend, all its subtasks and trials) because a backend's memory
is built up subtask after subtask and must stay in one process.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..options.config import Shard
from ..runs.manifest import config_sha256
from ..runs.store import runs_root
from ..suite.fetch import file_sha256


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
