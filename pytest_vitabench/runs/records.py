"""Journal records: an item's result without its trajectory and memory snapshot, which go to blobs."""

from __future__ import annotations

from typing import Any

from ..result import ItemResult
from .store import RunStore


def journal_item(store: RunStore, result: ItemResult, *, suite_sha256: str, config_sha256: str) -> ItemResult:
    """Store the result's trajectory and snapshot as blobs, append its record to the journal.

    Returns:
        The result with ``messages_sha256`` and ``snapshot_sha256`` set (trajectory still attached).
    """
    result.messages_sha256 = store.put_blob([m.model_dump(mode="json") for m in result.messages])
    result.snapshot_sha256 = store.put_blob(result.memory_snapshot)
    record = result.light()
    record["suite_sha256"] = suite_sha256
    record["config_sha256"] = config_sha256
    store.append(record)
    return result


def result_of(row: dict[str, Any]) -> ItemResult:
    """The result (without trajectory) of a journal record or a report's result row."""
    return ItemResult.model_validate({key: value for key, value in row.items() if key in ItemResult.model_fields})


def result_from_record(record: dict[str, Any]) -> ItemResult:
    """The saved result of a journal record, marked as resumed."""
    result = result_of(record)
    result.resumed = True
    return result
