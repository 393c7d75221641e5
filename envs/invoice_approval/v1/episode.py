"""One v1 episode's private world: its own in-memory copy of the books and the acting approver."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from ...core import ToolError
from ..json_sql import select_json_sql


@dataclass
class V1Episode:
    """What the tools receive: a private connection (``conn``), the acting approver's row, the task."""

    conn: sqlite3.Connection
    actor: dict[str, Any]
    task_id: str

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        cursor = self.conn.execute(sql, params)
        row = cursor.fetchone()
        if row is None:
            return None
        return dict(zip([c[0] for c in cursor.description], row, strict=True))

    def require(self, sql: str, params: tuple[Any, ...], what: str) -> dict[str, Any]:
        row = self.one(sql, params)
        if row is None:
            raise ToolError(f"{what} not found")
        return row

    def json_rows(self, columns: str, rest: str, params: tuple[Any, ...]) -> str:
        """``SELECT columns ... rest`` as a JSON array of objects, in the query's order."""
        rows = self.conn.execute(select_json_sql(columns, rest), params).fetchall()
        return "[" + ", ".join(row[0] for row in rows) + "]"

    def json_one(self, columns: str, rest: str, params: tuple[Any, ...], what: str) -> str:
        row = self.conn.execute(select_json_sql(columns, rest), params).fetchone()
        if row is None:
            raise ToolError(f"{what} not found")
        return str(row[0])

    def audit(self, tool: str, invoice_id: str, arguments: dict[str, Any]) -> None:
        """Every successful write is logged with the acting approver."""
        self.conn.execute(
            "INSERT INTO audit_log (approver_id, tool, invoice_id, arguments) VALUES (?, ?, ?, ?)",
            (self.actor["approver_id"], tool, invoice_id, json.dumps(arguments, ensure_ascii=False, sort_keys=True)),
        )
