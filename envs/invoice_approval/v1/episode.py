"""One v1 episode's private world: its own in-memory copy of the books and the acting approver."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...core import ToolError
from ..shared.episode import Books
from ..shared.json_sql import select_json_sql
from .document_cache import DocumentCache


@dataclass
class V1Episode(Books):
    """What the v1 tools receive: v0's queries (``..episode.Books``) plus one record as JSON straight from
    SQLite (v1 has no record view: its records are read from the books, whose captured fields change)."""

    documents: DocumentCache = field(default_factory=DocumentCache, kw_only=True)
    """Documents parsed and rendered once (``document_cache.py``): the company's cache when the env opened the
    episode, else the episode's own."""

    def json_one(self, columns: str, rest: str, params: tuple[Any, ...], what: str) -> str:
        row = self.conn.execute(select_json_sql(columns, rest), params).fetchone()
        if row is None:
            raise ToolError(f"{what} not found")
        return str(row[0])
