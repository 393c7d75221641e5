"""One v0 episode's private world: the shared ``Books`` plus the record view that serves v0's reads."""

from __future__ import annotations

from dataclasses import dataclass

from ...core import ToolError
from ..shared.episode import Books
from .read_model import Record, RecordView


@dataclass
class InvoiceEpisode(Books):
    """What the v0 tools receive. ``conn`` is a private in-memory copy; ``actor`` is the acting approver's row;
    ``records`` serves single records as JSON (``read_model.py``)."""

    records: RecordView

    def record(self, record: Record, key: str, kind: str) -> str:
        """One record as JSON, or a ``ToolError`` naming the ``kind`` of record and the key not found."""
        text = self.records.get(record, key)
        if text is None:
            raise ToolError(f"{kind} '{key}' not found")
        return text

    def writing(self, on: bool) -> None:
        self.records.writing = on
