"""``vitabench fetch``: the official VitaBench 2.0 task file from the Hugging Face Hub, at a pinned revision.

Beside the file, ``tasks.json.source`` records where it came from, for the report (:func:`suite_sources`);
its name ends in ``.source`` so it is never collected as a suite.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HUB_DATASET = "meituan-longcat/VitaBench-2.0"
HUB_FILE = "tasks.json"
#: The dataset revision whose subtask counts are known (771: 404 delivery, 223 instore, 144 ota); the dataset
#: has no tags to pin instead.
PINNED_REVISION = "a4553e1"
#: The sha256 of the task file at a known revision, as far as it is published (a prefix).
KNOWN_SHA256 = {PINNED_REVISION: "3a05f7e2"}
#: Where the official tasks go: ``suites/official/`` beside the demo suites (docs/suites.md).
DEFAULT_DIR = Path("suites") / "official"
SOURCE_SUFFIX = ".source"


class FetchError(Exception):
    """The task file could not be fetched; the message says why and what to do."""


@dataclass(frozen=True)
class SuiteSource:
    """Where a fetched task file came from: the dataset, the revision asked for, the commit the Hub resolved
    it to, the file's sha256 as downloaded."""

    repo: str
    revision: str
    commit: str
    sha256: str
    filename: str = HUB_FILE


def source_path(suite: Path) -> Path:
    """The provenance record beside a suite file (``tasks.json`` -> ``tasks.json.source``)."""
    return suite.with_name(suite.name + SOURCE_SUFFIX)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_suite(directory: str | Path = DEFAULT_DIR, *, revision: str = PINNED_REVISION, repo: str = HUB_DATASET,
                filename: str = HUB_FILE, endpoint: str | None = None) -> tuple[Path, SuiteSource]:
    """Download the task file into ``directory`` and record its source beside it.

    Args:
        endpoint: The Hub's address; ``None``: ``HF_ENDPOINT`` or huggingface.co.

    Raises:
        FetchError: ``huggingface_hub`` is not installed, the Hub cannot be reached, the dataset, revision or
            file does not exist, or the file at the pinned revision does not have the published sha256.
    """
    if not revision.strip():
        raise FetchError("--revision must not be empty (default: the pinned revision " + PINNED_REVISION + ")")
    try:
        import huggingface_hub  # noqa: F401 - only whether it is installed
    except ImportError:
        raise FetchError("vitabench fetch needs huggingface_hub: pip install 'pytest-vitabench[hub]'") from None
    target = Path(directory)
    where = f"{repo}@{revision} ({filename})"
    try:
        target.mkdir(parents=True, exist_ok=True)
        # A fresh folder per download: into a folder that already holds the file, the client falls back to that
        # file when the Hub fails, which would hide every error below; an old file stays until the new one passed.
        staging = Path(tempfile.mkdtemp(prefix=".fetch-", dir=target))
    except OSError as exc:
        raise FetchError(f"cannot write into {target}: {exc}") from None
    try:
        return _download(staging, target, where, revision=revision, repo=repo, filename=filename,
                         endpoint=endpoint)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _download(staging: Path, target: Path, where: str, *, revision: str, repo: str, filename: str,
              endpoint: str | None) -> tuple[Path, SuiteSource]:
    from huggingface_hub import errors as hub_errors
    from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url

    try:
        path = Path(hf_hub_download(repo_id=repo, filename=filename, repo_type="dataset", revision=revision,
                                    local_dir=staging, endpoint=endpoint))
    except (hub_errors.LocalEntryNotFoundError, hub_errors.OfflineModeIsEnabled) as exc:
        # No connection: LocalEntryNotFoundError is an EntryNotFoundError, so it is caught first.
        raise _unreachable(where, exc) from None
    except hub_errors.RevisionNotFoundError:
        raise FetchError(f"revision {revision!r} not found in the dataset {repo} (a commit, branch or tag; "
                         f"default {PINNED_REVISION})") from None
    except hub_errors.EntryNotFoundError:
        raise FetchError(f"{filename} not found in {repo} at revision {revision}") from None
    except hub_errors.RepositoryNotFoundError:
        raise FetchError(f"dataset {repo} not found on the Hub (or it needs a token: set HF_TOKEN)") from None
    except hub_errors.HfHubHTTPError as exc:  # an OSError too: caught before the other ones
        raise FetchError(f"could not download {where}: {_first_line(exc)}") from None
    except OSError as exc:
        raise _unreachable(where, exc) from None
    url = hf_hub_url(repo_id=repo, filename=filename, repo_type="dataset", revision=revision, endpoint=endpoint)
    try:
        commit = get_hf_file_metadata(url).commit_hash or revision
    except Exception:  # noqa: BLE001 - the file is here; only the name of its commit could not be asked for
        commit = revision
    source = SuiteSource(repo=repo, revision=revision, commit=commit, sha256=file_sha256(path), filename=filename)
    expected = KNOWN_SHA256.get(revision) if repo == HUB_DATASET and filename == HUB_FILE else None
    if expected and not source.sha256.startswith(expected):
        raise FetchError(f"{where} has sha256 {source.sha256}, not the published {expected}...: not kept (the "
                         "dataset changed at that revision, or a mirror serves another file)")
    final = target / Path(filename).name
    os.replace(path, final)
    source_path(final).write_text(json.dumps(asdict(source), indent=2) + "\n", encoding="utf-8")
    return final, source


def _unreachable(where: str, exc: BaseException) -> FetchError:
    return FetchError(f"could not download {where}: the Hub is not reachable ({type(exc).__name__}: "
                      f"{_first_line(exc)}); check the network or HF_ENDPOINT")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def read_source(suite: Path) -> dict[str, Any] | None:
    """The provenance record of a suite file, or ``None`` when it has none (or it is unreadable)."""
    try:
        data = json.loads(source_path(suite).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def suite_sources(suites: dict[str, str] | Iterable[str]) -> dict[str, dict[str, Any]]:
    """The report's ``config.suite_sources``: for each fetched suite, its dataset, revision, commit and sha256.

    Args:
        suites: Suite paths (or ``config.suites``: path -> the sha256 measured at run time).

    Returns:
        ``{path: {"repo", "revision", "commit", "sha256", "unchanged"}}`` for the suites with a record;
        ``unchanged`` says whether the file the run measured is the one downloaded.
    """
    measured = dict(suites) if isinstance(suites, dict) else {}
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(suites):
        record = read_source(Path(path))
        if record is None:
            continue
        entry = {key: record.get(key) for key in ("repo", "revision", "commit", "sha256")}
        entry["unchanged"] = measured.get(path) == record.get("sha256") if path in measured else None
        out[path] = entry
    return out
