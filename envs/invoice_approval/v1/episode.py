"""One v1 episode's private world: its own in-memory copy of the books and the acting approver."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core import ToolError
from ..shared.episode import Books
from ..shared.json_sql import select_json_sql


@dataclass
class V1Episode(Books):
    """What the v1 tools receive: v0's queries (``..episode.Books``) plus one record as JSON straight from
    SQLite (v1 has no record view: its records are read from the books, whose captured fields change)."""

    def json_one(self, columns: str, rest: str, params: tuple[Any, ...], what: str) -> str:
        row = self.conn.execute(select_json_sql(columns, rest), params).fetchone()
        if row is None:
            raise ToolError(f"{what} not found")
        return str(row[0])
