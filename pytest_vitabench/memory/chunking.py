"""Cut interaction records into the chunks the rag memory embeds: one per record, split into pieces of at
most ``chunk_tokens`` tokens when longer. A chunk's text is the record as ``full_context`` renders it, so
the agent is shown exactly the text that was embedded.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..suite.schema import DailyRecord, EventRecord
from .render import render_record
from .tokens import split_tokens

#: VitaBench 2.0's chunk size and overlap (memory.yaml ``rag``).
DEFAULT_CHUNK_TOKENS = 512
DEFAULT_CHUNK_OVERLAP = 0


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of history.

    Attributes:
        text: What is embedded and shown (rendered record lines, or a piece of them).
        timestamp: The record's date or timestamp (for ordering and display).
        kind: ``daily_record`` or the event record's type.
        part: 1-based index of this piece within its record, and ``parts`` how many pieces it has.
    """

    text: str
    timestamp: str
    kind: str
    part: int = 1
    parts: int = 1

    def shown(self) -> str:
        """The text as the agent reads it: a continuation piece says which record it belongs to."""
        if self.part == 1:
            return self.text
        return f"- [{self.timestamp}] [{self.kind}, part {self.part}/{self.parts}] ...{self.text}"


def record_chunks(record: DailyRecord | EventRecord, chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
                  overlap: int = DEFAULT_CHUNK_OVERLAP) -> list[Chunk]:
    """The chunks of one interaction record (none for an empty record)."""
    text = "\n".join(render_record(record))
    kind = record.type if isinstance(record, EventRecord) else "daily_record"
    pieces = split_tokens(text, chunk_tokens, overlap)
    return [Chunk(text=piece, timestamp=record.when, kind=kind, part=i + 1, parts=len(pieces))
            for i, piece in enumerate(pieces)]


def chunk_records(records: list[DailyRecord | EventRecord], chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
                  overlap: int = DEFAULT_CHUNK_OVERLAP) -> list[Chunk]:
    """The chunks of ``records``, in record order."""
    return [chunk for record in records for chunk in record_chunks(record, chunk_tokens, overlap)]
