"""One episode's private world: its own database connection and the acting approver."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from ..core import ToolError


@dataclass
class InvoiceEpisode:
    """What the tools receive. ``conn`` is a private in-memory copy; ``actor`` is the acting approver's row."""

    conn: sqlite3.Connection
    actor: dict[str, Any]
    task_id: str

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        cursor = self.conn.execute(sql, params)
        row = cursor.fetchone()
        if row is None:
            return None
        return dict(zip([c[0] for c in cursor.description], row, strict=True))

    def json_rows(self, columns: str, rest: str, params: tuple[Any, ...]) -> str:
        """``SELECT columns ... rest`` as a JSON array of objects, each row built by SQLite's ``json_object``.

        Building JSON in SQLite's C code is several times faster than Python dicts plus ``json.dumps``; the
        rows keep the outer query's ORDER BY (no aggregate whose order is unspecified)."""
        rows = self.conn.execute(f"SELECT {json_object_sql(columns)} {rest}", params).fetchall()
        return "[" + ", ".join(row[0] for row in rows) + "]"

    def json_row(self, columns: str, rest: str, params: tuple[Any, ...], what: str) -> str:
        """One row as a JSON object built by SQLite, or a ``ToolError`` that names what was not found."""
        row = self.conn.execute(f"SELECT {json_object_sql(columns)} {rest}", params).fetchone()
        if row is None:
            raise ToolError(f"{what} not found")
        return str(row[0])

    def require(self, sql: str, params: tuple[Any, ...], what: str) -> dict[str, Any]:
        """The single row, or a ``ToolError`` that names what was not found."""
        row = self.one(sql, params)
        if row is None:
            raise ToolError(f"{what} not found")
        return row

    def audit(self, tool: str, invoice_id: str, arguments: dict[str, Any]) -> None:
        """Every successful write is logged with the acting approver (the four-eyes trail)."""
        self.conn.execute("INSERT INTO audit_log (approver_id, tool, invoice_id, arguments) VALUES (?, ?, ?, ?)",
                          (self.actor["approver_id"], tool, invoice_id,
                           json.dumps(arguments, ensure_ascii=False, sort_keys=True)))


def json_object_sql(columns: str) -> str:
    """``json_object('a', a, 'b', b, ...)`` for a comma-separated column list. A column written ``flag?`` is an
    integer 0/1 column rendered as JSON ``false``/``true``."""
    parts = []
    for column in (c.strip() for c in columns.split(",")):
        if column.endswith("?"):
            name = column[:-1]
            parts.append(f"'{name}', json(CASE WHEN {name} THEN 'true' ELSE 'false' END)")
        else:
            parts.append(f"'{column}', {column}")
    return "json_object(" + ", ".join(parts) + ")"


def to_json(value: Any) -> str:
    """Tool output as JSON text: UTF-8 as is (umlauts stay readable), keys in schema order."""
    return json.dumps(value, ensure_ascii=False)
