"""Spare SQLite connections: a closed env's connection serves the next episode opened in the process.

Opening a connection costs several times a reset: SQLite parses the schema on a connection's first statement,
and a new connection has to do it again (about 100 µs here), while ``deserialize`` into a used connection keeps
the parsed schema (``sandbox.open_episode``'s ``reuse``). Every company has the same schema, so a connection that
a closed env gives back is as good as new for any other: a fork, an unpickled env, or the first reset of a new
env (the eval harness makes and closes an env per episode; tree search forks and discards). The stock is bounded,
so a burst of closes does not keep memory; connections beyond it are closed.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from .db import connect_bytes

MAX_SPARE: Final = 32
_spare: list[sqlite3.Connection] = []


def open_books(blob: bytes) -> sqlite3.Connection:
    """A private connection holding a copy of ``blob``: a spare one (schema already parsed) when there is one."""
    conn = take_spare()
    if conn is None:
        return connect_bytes(blob)
    conn.deserialize(blob)
    return conn


def take_spare() -> sqlite3.Connection | None:
    """A spare connection (its content is to be replaced with ``deserialize``), or None."""
    try:
        return _spare.pop()  # atomic under the GIL: two threads never get the same one
    except IndexError:
        return None


def give_back(conn: sqlite3.Connection) -> None:
    """Keep ``conn`` for the next episode (up to ``MAX_SPARE``); close it otherwise. The caller must not use it
    again. Its episode's open transaction is rolled back first (the next user deserializes over it anyway)."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")
    if len(_spare) < MAX_SPARE:
        _spare.append(conn)
    else:
        conn.close()
