"""The pieces of one run made in several processes (``--vita-shard``), read back, checked and put together.

A piece is a run directory, a directory holding such directories (a run's ``<run-id>/`` with its shards
downloaded into it), or a JSON report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..llm.ledger import Ledger
from ..result import ItemResult
from .identity import settings_differences
from .reader import open_run
from .records import result_of
from .session import SUMMARY
from .store import MANIFEST, RunStore


class MergeError(ValueError):
    """The pieces cannot be merged; the message lists every problem (settings and suites that differ,
    items found twice, paths that are no piece)."""


@dataclass
class Piece:
    """One run directory or report, as :func:`combine` reads it."""

    source: Path
    config: dict[str, Any]
    results: list[dict[str, Any]]
    usage: dict[str, Any] | None
    run: dict[str, Any]
    shard: dict[str, Any] | None = None
    store: RunStore | None = None

    @property
    def identity(self) -> str:
        """The same run directory reached twice (its report and itself) is one piece."""
        return str((self.store.path if self.store is not None else self.source).resolve())


@dataclass
class Combined:
    """The pieces as one run, as one made in one process would have it.

    Attributes:
        config: The report's config block (of the first piece; the scoring settings are the same in all).
        results: Every item's result, sorted by node id.
        usage: The pieces' LLM usage added up (``None`` when no piece recorded any).
        planned: Items the whole run planned (the selection before sharding), when the pieces say it.
        trials_selected: The fewest trials per unit any piece selected (the metrics' k), when the pieces say it.
        missing: Sentences naming shards that did not arrive.
        notes: Other things to know: pieces whose LLM usage is unknown.
        not_run: Items a piece never started (its spend cap...), with the reason, by node id; none of them has a
            result in any piece.
    """

    config: dict[str, Any]
    results: list[ItemResult]
    usage: dict[str, Any] | None
    run_id: str
    stores: list[RunStore] = field(default_factory=list)
    planned: int | None = None
    trials_selected: int | None = None
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    not_run: dict[str, str] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        return bool(self.missing) or (self.planned is not None and len(self.results) < self.planned)


def expand(paths: Iterable[str | Path]) -> list[Path]:
    """Each path as the pieces it holds; :class:`MergeError` lists the paths that hold none."""
    out: list[Path] = []
    problems = []
    for raw in paths:
        path = Path(raw)
        if path.is_file() or (path / MANIFEST).is_file():
            out.append(path)
        elif path.is_dir():
            found = sorted(p.parent for p in path.glob(f"**/{MANIFEST}"))
            if found:
                out.extend(found)
            else:
                problems.append(f"{path}: a directory without any run directory (no manifest.json below it)")
        else:
            problems.append(f"{path}: no such report or run directory")
    if problems:
        raise MergeError("cannot merge:\n" + "\n".join(f"  {p}" for p in problems))
    return out


def read_piece(path: Path) -> Piece:
    """One piece: a run directory (its manifest, journal and ``summary.json``) or a JSON report."""
    try:
        run = open_run(path)
    except (OSError, ValueError) as exc:
        raise MergeError(f"cannot merge: {exc}") from None
    report, store = run.report, run.store
    # A run directory keeps the report's config block, the usage and the counts in its summary.json.
    summary = (store.read_json(SUMMARY) if store is not None and run.source.is_dir() else None) or {}
    selection = ((store.manifest() or {}).get("selection") if store is not None else None) or {}
    return Piece(source=path, config=dict(summary.get("config") or report.get("config") or {}), results=run.results,
                 usage=summary.get("usage", report.get("usage")),
                 run={**report.get("run", {}), **(summary.get("run") or {}), "selection": selection},
                 shard=selection.get("shard"), store=store)


def mismatches(pieces: Sequence[Piece]) -> list[str]:
    """Every way the pieces differ from the first one in their settings
    (:func:`.identity.settings_differences`) and suite files."""
    first = pieces[0]
    base_suites = first.config.get("suites") or {}
    out = []
    for piece in pieces[1:]:
        for key in settings_differences(first.config, piece.config):
            out.append(f"{piece.source}: {key} is {piece.config.get(key)!r}, {first.source} has "
                       f"{first.config.get(key)!r}")
        suites = piece.config.get("suites") or {}
        for path in sorted(set(base_suites) & set(suites)):
            if base_suites[path] != suites[path]:
                out.append(f"{piece.source}: suite {path} has sha256 {suites[path][:12]}, {first.source} has "
                           f"{base_suites[path][:12]} (another version of the file)")
    return out


def combine(paths: Iterable[str | Path]) -> Combined:
    """Read and check the pieces, and put them together. Settings that say how a piece ran, not what it
    measured (limits, outputs, gates, ``--vita-shard``, the endpoint), may differ between pieces.

    Raises:
        MergeError: Nothing to merge; pieces whose settings or suites differ; an item in two pieces.
    """
    pieces: list[Piece] = []
    seen: set[str] = set()
    for path in expand(paths):
        piece = read_piece(path)
        if piece.identity not in seen:
            seen.add(piece.identity)
            pieces.append(piece)
    if not pieces:
        raise MergeError("cannot merge: no pieces given")
    problems = mismatches(pieces)
    counts = sorted({int(p.shard["count"]) for p in pieces if p.shard})
    if len(counts) > 1:
        problems.append(f"the pieces were split into different numbers of shards: {counts}")
    owner: dict[str, Path] = {}
    for piece in pieces:
        for row in piece.results:
            if row["nodeid"] in owner:
                problems.append(f"{row['nodeid']} is in both {owner[row['nodeid']]} and {piece.source} (the same "
                                "items run twice: give each shard once)")
            owner[row["nodeid"]] = piece.source
    if problems:
        shown = problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else [])
        raise MergeError("cannot merge these pieces, they measured different things:\n"
                         + "\n".join(f"  {line}" for line in shown))
    rows = sorted((row for piece in pieces for row in piece.results), key=lambda r: r["nodeid"])
    results = [result_of(row) for row in rows]
    return Combined(config=_merged_config(pieces), results=results, usage=_usage(pieces),
                    run_id=next((str(p.run["id"]) for p in pieces if p.run.get("id")), "merged"),
                    stores=[p.store for p in pieces if p.store is not None], planned=_planned(pieces),
                    trials_selected=_trials_selected(pieces),
                    missing=_missing(pieces), notes=_notes(pieces), pieces=[str(p.source) for p in pieces],
                    not_run={nodeid: str(reason) for p in pieces
                             for nodeid, reason in (p.run.get("not_run") or {}).items() if nodeid not in owner})


def _merged_config(pieces: Sequence[Piece]) -> dict[str, Any]:
    config = dict(pieces[0].config)
    # path -> sha256 / language / download record: each piece knows its own suites
    for key in ("suites", "suite_languages", "suite_sources"):
        merged = {path: value for piece in pieces for path, value in (piece.config.get(key) or {}).items()}
        if merged:
            config[key] = dict(sorted(merged.items()))
    return config


def _usage(pieces: Sequence[Piece]) -> dict[str, Any] | None:
    recorded = [p.usage for p in pieces if p.usage]
    if not recorded:
        return None
    ledger = Ledger()
    for usage in recorded:
        ledger.merge(usage)
    return ledger.to_dict()


def _planned(pieces: Sequence[Piece]) -> int | None:
    """The items the whole run selected: a shard records the selection before it took its share."""
    for piece in pieces:
        if piece.shard and piece.shard.get("selected_in_run") is not None:
            return int(piece.shard["selected_in_run"])
    planned = pieces[0].run.get("planned")
    return int(planned) if planned is not None and len(pieces) == 1 else None


def _trials_selected(pieces: Sequence[Piece]) -> int | None:
    """The merged run's k: each piece's trials selected per unit (its session's, else its manifest's, which an
    unfinished shard leaves too), the fewest of them, as one process selecting all the pieces' items would have."""
    found = [int(value) for p in pieces
             if (value := p.run.get("trials_selected") or p.run["selection"].get("trials_selected"))]
    return min(found, default=None)


def _missing(pieces: Sequence[Piece]) -> list[str]:
    shards = [p.shard for p in pieces if p.shard]
    if not shards:
        return []
    count = int(shards[0]["count"])
    present = {int(s["index"]) for s in shards}
    absent = [i for i in range(1, count + 1) if i not in present]
    return [f"shard(s) {', '.join(f'{i}/{count}' for i in absent)} of the run missing"] if absent else []


def _notes(pieces: Sequence[Piece]) -> list[str]:
    no_usage = [str(p.source) for p in pieces if p.usage is None]
    if no_usage and len(no_usage) < len(pieces):
        return [f"LLM usage unknown for {', '.join(no_usage)} (the piece did not finish: no summary.json)"]
    return []
