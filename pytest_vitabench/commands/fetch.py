"""``vitabench fetch``: the official VitaBench 2.0 task file from the Hugging Face Hub, at a pinned revision."""

from __future__ import annotations

import argparse
import sys

from ..suite.fetch import DEFAULT_DIR, HUB_DATASET, PINNED_REVISION, FetchError, fetch_suite
from .command import Command, argument


def fetch_command(args: argparse.Namespace) -> int:
    """Download, record the revision and sha256 beside the file, print where it is; exit status 0 or 1."""
    try:
        path, source = fetch_suite(args.dir, revision=args.revision, repo=args.repo)
    except FetchError as exc:
        print(f"vitabench fetch: {exc}", file=sys.stderr)
        return 1
    print(f"{path}  ({source.repo} revision {source.revision}, commit {source.commit}, sha256 {source.sha256})")
    print(f"run it: pytest {path} --vita-profile official")
    return 0


COMMAND = Command(
    "fetch", help="download the official VitaBench 2.0 tasks.json from the Hugging Face Hub (needs the hub extra)",
    description="Download the official VitaBench 2.0 task file from the Hugging Face Hub at a pinned revision, "
                "record its revision and sha256 beside it (tasks.json.source, which the JSON report reads) and "
                "print where it is. HF_ENDPOINT names a mirror, HF_TOKEN a token.",
    run=fetch_command, arguments=(
        argument("--dir", default=str(DEFAULT_DIR), help=f"where tasks.json goes (default: {DEFAULT_DIR})"),
        argument("--revision", default=PINNED_REVISION,
                 help=f"dataset commit, branch or tag (default: {PINNED_REVISION}, the revision the published "
                      "counts were made on)"),
        argument("--repo", default=HUB_DATASET, help=f"the Hub dataset (default: {HUB_DATASET})"),
    ))
