"""``vitabench cache info`` and ``vitabench cache clear``: look at and empty the disk store outside pytest."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .disk import DEFAULT_ROOT, LEGACY_ROOT, NAMESPACES, Store, clear_project, default_root, legacy_notice


def register(commands: Any) -> None:
    """Add the ``cache`` command to the ``vitabench`` subparsers ``commands``."""
    cache = commands.add_parser(
        "cache", help="show or clear the disk cache (LLM answers, embeddings, memory checkpoints, suite indexes)",
        description=f"The disk cache lives in <rootdir>/{DEFAULT_ROOT.as_posix()}/, one directory per kind of "
                    "entry. Clearing it never touches the run journals in .vitabench/runs/ (--vita-resume needs "
                    "them); `pytest --cache-clear` clears the same cache.")
    actions = cache.add_subparsers(dest="cache_command", required=True)
    info = actions.add_parser("info", help="what the cache holds: entries and size per kind",
                              description="Print the cache's location and, per kind of entry, what it holds, "
                                          "what keys it, how many entries and how many bytes.")
    clear = actions.add_parser("clear", help="delete the cache (all of it, or the kinds named)",
                               description="Delete cached entries. Run journals (.vitabench/runs/) are kept.")
    clear.add_argument("kinds", nargs="*", metavar="KIND",
                       help=f"kinds to clear, among {', '.join(NAMESPACES)} (default: all, and the legacy "
                            f"{LEGACY_ROOT}/ directory)")
    for parser in (info, clear):
        parser.add_argument("--rootdir", type=Path, default=None,
                            help="the project's root (pytest's rootdir; default: the nearest directory upwards "
                                 "from here that holds .vitabench/, else the current directory)")
    info.set_defaults(func=_info)
    clear.set_defaults(func=_clear)


def _rootdir(args: argparse.Namespace) -> Path:
    if args.rootdir is not None:
        return Path(args.rootdir)
    here = Path.cwd()
    return next((d for d in (here, *here.parents) if (d / DEFAULT_ROOT.parent).is_dir()), here)


def _info(args: argparse.Namespace) -> int:
    args.rootdir = _rootdir(args)
    root = default_root(args.rootdir)
    print(f"cache: {root}")
    usage = {u.name: u for u in Store(root).usage()}
    for name in [*NAMESPACES, *sorted(set(usage) - set(NAMESPACES))]:
        entries, size = (usage[name].entries, usage[name].size_bytes) if name in usage else (0, 0)
        print(f"  {name:<11} {entries:>8} entries {_human(size):>9}  {NAMESPACES.get(name, 'unknown')}")
    notice = legacy_notice(args.rootdir)
    if notice:
        print(notice)
    return 0


def _clear(args: argparse.Namespace) -> int:
    args.rootdir = _rootdir(args)
    unknown = [k for k in args.kinds if k not in NAMESPACES]
    if unknown:
        print(f"vitabench cache clear: unknown kind {', '.join(unknown)}; choose among {', '.join(NAMESPACES)}",
              file=sys.stderr)
        return 2
    if args.kinds:
        removed, legacy = Store(default_root(args.rootdir)).clear(args.kinds), False
    else:
        removed, legacy = clear_project(args.rootdir)
    total = sum(removed.values())
    detail = ", ".join(f"{name} {count}" for name, count in removed.items() if count)
    print(f"removed {total} cached entries{f' ({detail})' if detail else ''} from {default_root(args.rootdir)}")
    if legacy:
        print(f"removed the legacy {args.rootdir / LEGACY_ROOT}")
    return 0


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover - the loop always returns
