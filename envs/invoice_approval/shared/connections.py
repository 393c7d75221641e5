"""Spare SQLite connections: a closed env's connection serves the next episode opened in the process.

Opening a connection costs several times a reset: SQLite parses the schema on a connection's first statement,
and a new connection has to do it again (about 100 µs here), while ``deserialize`` into a used connection keeps
the parsed schema and the prepared statements. A connection that a closed env gives back is as good as new for
any other of the same version: a fork, an unpickled env, or the first reset of a new env (the eval harness makes
and closes an env per episode; tree search forks and discards). The stock is bounded, so a burst of closes
does not keep memory; connections beyond it are closed.

Spares are kept per books schema (``schema``: one per InvoiceApproval version), never shared between schemas.
Why: the ``sqlite3`` module keeps each connection's prepared statements, and ``deserialize`` does not expire
them. SQLite re-prepares a statement only when the database's schema cookie changed, so books of another schema
that happen to carry the same cookie run the old statements against the wrong pages ("database disk image is
malformed", seen when a v0 connection served a v1 fork). Companies of one version share one schema, created in
the same order, so their tables sit on the same pages and a statement prepared for one is right for all.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from .db import connect_bytes

MAX_SPARE: Final = 32  # per schema
_spare: dict[str, list[sqlite3.Connection]] = {}


def open_books(blob: bytes, schema: str) -> sqlite3.Connection:
    """A private connection holding a copy of ``blob`` (books of ``schema``): a spare one (schema already parsed)
    when there is one."""
    conn = take_spare(schema)
    if conn is None:
        return connect_bytes(blob)
    conn.deserialize(blob)
    return conn


def take_spare(schema: str) -> sqlite3.Connection | None:
    """A spare connection that last held books of ``schema`` (its content is to be replaced with
    ``deserialize``), or None."""
    try:
        return _spare.get(schema, []).pop()  # atomic under the GIL: two threads never get the same one
    except IndexError:
        return None


def give_back(conn: sqlite3.Connection, schema: str) -> None:
    """Keep ``conn``, which holds books of ``schema``, for the next episode of that schema (up to ``MAX_SPARE``);
    close it otherwise. The caller must not use it again. Its episode's open transaction is rolled back first
    (the next user deserializes over it anyway)."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")
    stock = _spare.setdefault(schema, [])
    if len(stock) < MAX_SPARE:
        stock.append(conn)
    else:
        conn.close()
