"""One episode's private world in every version: its own database connection and the acting approver.

A version's ``episode.py`` subclasses ``Books`` with what its tools add (v0's record view, v1's ``json_one``)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ...core import ToolError
from .db import connect_bytes
from .json_sql import select_json_sql

_AUDIT_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True)
"""What ``json.dumps(..., ensure_ascii=False, sort_keys=True)`` builds on every call, built once."""


def audit_json(arguments: dict[str, Any]) -> str:
    """``json.dumps(arguments, ensure_ascii=False, sort_keys=True)``, the same text, built directly for the flat
    string and integer arguments every write logs (the encoder sets up its machinery on each call, which cost
    more than the rest of the audit entry); anything else goes through the encoder."""
    parts = []
    for key in sorted(arguments):
        value = arguments[key]
        kind = type(value)
        if type(key) is not str or (kind is not str and kind is not int):
            return _AUDIT_JSON.encode(arguments)
        shown = _json_string(value) if kind is str else int.__repr__(value)
        parts.append(f"{_json_string(key)}: {shown}")
    return "{" + ", ".join(parts) + "}"


_json_string = json.encoder.encode_basestring  # the encoder's own quoting when ensure_ascii is off


@dataclass
class Books:
    """What the tools of every InvoiceApproval version receive: a private in-memory copy of the books
    (``conn``), the acting approver's row and the task. The queries here are the same in every version; what a
    version adds (v0's record view, v1's ``json_one``) lives in its subclass."""

    conn: sqlite3.Connection
    actor: dict[str, Any]
    task_id: str
    # The template this connection holds under the episode's open transaction (``restart_books``), or None when
    # its books are anything else (a fork's, or committed by ``committed_bytes``): then a reset deserializes.
    base: bytes | None = field(default=None, kw_only=True)

    def writing(self, on: bool) -> None:
        """Told when a tool's write savepoint opens (True) and closes (False); v0's record view listens."""

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
        return self.json_array(select_json_sql(columns, rest), params)

    def json_array(self, sql: str, params: Any) -> str:
        """The JSON array of the one-column rows of ``sql``, each already a JSON object (see ``json_rows``)."""
        rows = self.conn.execute(sql, params).fetchall()
        return "[" + ", ".join(row[0] for row in rows) + "]"

    def scalar(self, sql: str, params: tuple[Any, ...], what: str) -> Any:
        """The first column of the single row, or a ``ToolError`` that names what was not found (``require``
        without building a dict of the row: for existence checks and one-column reads)."""
        row = self.conn.execute(sql, params).fetchone()
        if row is None:
            raise ToolError(f"{what} not found")
        return row[0]

    def require(self, sql: str, params: tuple[Any, ...], what: str) -> dict[str, Any]:
        """The single row, or a ``ToolError`` that names what was not found."""
        row = self.one(sql, params)
        if row is None:
            raise ToolError(f"{what} not found")
        return row

    def audit(self, tool: str, invoice_id: str, arguments: dict[str, Any]) -> None:
        """Every successful write is logged with the acting approver (the four-eyes trail)."""
        self.conn.execute(
            "INSERT INTO audit_log (approver_id, tool, invoice_id, arguments) VALUES (?, ?, ?, ?)",
            (self.actor["approver_id"], tool, invoice_id, audit_json(arguments)),
        )

    def acting(self, actor_id: str, known: dict[str, Any] | None) -> None:
        """``act_as``, or a copy of ``known``, the row an earlier episode on the same template read (no tool
        changes approvers, and reading it is a third of a reset)."""
        if known is None:
            self.act_as(actor_id)
        else:
            self.actor = dict(known)

    def act_as(self, actor_id: str) -> None:
        """Make ``actor_id`` the acting approver; an unknown one closes the connection and is refused."""
        actor = self.one(
            "SELECT approver_id, name, role, limit_cents FROM approvers WHERE approver_id = ?", (actor_id,)
        )
        if actor is None:
            self.conn.close()
            raise ToolError(f"acting approver '{actor_id}' does not exist in this company")
        self.actor = actor


def fresh_books(template: bytes, reuse: sqlite3.Connection | None) -> sqlite3.Connection:
    """A private copy of ``template``: ``reuse`` overwritten (``deserialize`` replaces its whole database, and
    skipping a new connection saves about a third of a reset), else a new connection."""
    if reuse is None:
        return connect_bytes(template)
    reuse.deserialize(template)
    return reuse


def restart_books(template: bytes, previous: Books | None, spare: sqlite3.Connection | None) -> sqlite3.Connection:
    """The env's books for a new episode: a copy of ``template`` under an open transaction, which the next
    reset rolls back.

    Why: a reset that ``deserialize``s copies the whole company and makes SQLite parse the schema again, so it
    grows with the company (380 µs at 100x). When the previous episode ran on this template inside its own
    transaction, rolling that back restores the template exactly, at a cost that follows what the episode
    wrote. Anything else (the first episode, another company, a fork's books, books committed by
    ``committed_bytes``, or a transaction someone ended) is overwritten with ``deserialize``, as before: ``spare``
    (or a new connection) when there is no previous episode."""
    if previous is not None and previous.base is template and previous.conn.in_transaction:
        previous.conn.execute("ROLLBACK")
        conn = previous.conn
    else:
        reuse = previous.conn if previous is not None else spare
        if reuse is not None and reuse.in_transaction:
            reuse.execute("ROLLBACK")
        conn = fresh_books(template, reuse)
    conn.execute("BEGIN")
    return conn


def committed_bytes(books: Books) -> bytes:
    """The books as they stand, serialized. ``serialize`` copies only committed pages, so an open episode
    transaction is committed first (and a new one begun): from then on the connection no longer holds its
    template, and the next reset deserializes instead of rolling back."""
    if books.conn.in_transaction:
        books.conn.execute("COMMIT")
        books.base = None
        books.conn.execute("BEGIN")
    return books.conn.serialize()


class savepoint:
    """A write inside a savepoint: a tool that fails half-way leaves the books exactly as they were. (Inside
    an episode's transaction, RELEASE keeps the write in that transaction; outside one, it commits.)

    A class rather than ``contextlib.contextmanager``: a generator-based context manager costs a generator, its
    frame and two ``next`` calls on every write; this does the same statements in the same order."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: Books) -> None:
        self.ctx = ctx

    def __enter__(self) -> None:
        self.ctx.conn.execute("SAVEPOINT tool_call")
        self.ctx.writing(True)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        ctx = self.ctx
        if kind is None:
            ctx.writing(False)
            ctx.conn.execute("RELEASE tool_call")
            return
        try:
            ctx.conn.execute("ROLLBACK TO tool_call")
            ctx.conn.execute("RELEASE tool_call")
        finally:
            ctx.writing(False)


def to_json(value: Any) -> str:
    """Tool output as JSON text: UTF-8 as is (umlauts stay readable), keys in schema order."""
    return json.dumps(value, ensure_ascii=False)
