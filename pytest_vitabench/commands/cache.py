"""``vitabench cache info`` and ``vitabench cache clear``: look at and empty the disk store outside pytest."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..store.disk import DEFAULT_ROOT, LEGACY_ROOT, NAMESPACES, Store, clear_project, default_root, legacy_notice
from .command import Command, argument


def _project_root(rootdir: Path | None) -> Path:
    if rootdir is not None:
        return Path(rootdir)
    here = Path.cwd()
    return next((d for d in (here, *here.parents) if (d / DEFAULT_ROOT.parent).is_dir()), here)


def cache_info(rootdir: Path | None = None) -> int:
    """Print where the cache is and, per kind of entry, how many entries and bytes it holds; exit status 0."""
    rootdir = _project_root(rootdir)
    root = default_root(rootdir)
    print(f"cache: {root}")
    usage = {u.name: u for u in Store(root).usage()}
    for name in [*NAMESPACES, *sorted(set(usage) - set(NAMESPACES))]:
        entries, size = (usage[name].entries, usage[name].size_bytes) if name in usage else (0, 0)
        print(f"  {name:<11} {entries:>8} entries {_human(size):>9}  {NAMESPACES.get(name, 'unknown')}")
    notice = legacy_notice(rootdir)
    if notice:
        print(notice)
    return 0


def cache_clear(rootdir: Path | None = None, kinds: Sequence[str] = ()) -> int:
    """Delete the cached entries of ``kinds`` (all, and the legacy directory, when empty); exit status 0 or 2."""
    rootdir = _project_root(rootdir)
    unknown = [k for k in kinds if k not in NAMESPACES]
    if unknown:
        print(f"vitabench cache clear: unknown kind {', '.join(unknown)}; choose among {', '.join(NAMESPACES)}",
              file=sys.stderr)
        return 2
    if kinds:
        removed, legacy = Store(default_root(rootdir)).clear(kinds), False
    else:
        removed, legacy = clear_project(rootdir)
    total = sum(removed.values())
    detail = ", ".join(f"{name} {count}" for name, count in removed.items() if count)
    print(f"removed {total} cached entries{f' ({detail})' if detail else ''} from {default_root(rootdir)}")
    if legacy:
        print(f"removed the legacy {rootdir / LEGACY_ROOT}")
    return 0


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover - the loop always returns


#: ``--rootdir`` of both actions.
_ROOTDIR = argument("--rootdir", type=Path, default=None,
                    help="the project's root (pytest's rootdir; default: the nearest directory upwards from here "
                         "that holds .vitabench/, else the current directory)")

COMMAND = Command(
    "cache", help="show or clear the disk cache (LLM answers, embeddings, memory checkpoints, suite indexes)",
    description=f"The disk cache lives in <rootdir>/{DEFAULT_ROOT.as_posix()}/, one directory per kind of entry. "
                "Clearing it never touches the run journals in .vitabench/runs/ (--vita-resume needs them); "
                "`pytest --cache-clear` clears the same cache.",
    subcommands=(
        Command("info", help="what the cache holds: entries and size per kind",
                description="Print the cache's location and, per kind of entry, what it holds, what keys it, how "
                            "many entries and how many bytes.",
                run=lambda args: cache_info(args.rootdir), arguments=(_ROOTDIR,)),
        Command("clear", help="delete the cache (all of it, or the kinds named)",
                description="Delete cached entries. Run journals (.vitabench/runs/) are kept.",
                run=lambda args: cache_clear(args.rootdir, args.kinds), arguments=(
                    argument("kinds", nargs="*", metavar="KIND",
                             help=f"kinds to clear, among {', '.join(NAMESPACES)} (default: all, and the legacy "
                                  f"{LEGACY_ROOT}/ directory)"),
                    _ROOTDIR)),
    ))
