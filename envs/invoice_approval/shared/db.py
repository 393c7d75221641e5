"""What every version's database shares: a private in-memory copy of serialized books, the canonical dump's
fingerprint, and the episode template (the seed with its hidden columns dropped, vacuumed).

Each version's ``db.py`` names its schema, its tables and its shipped files; the mechanics are here.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence

CANONICAL_SEED = 42
"""The seed of the company each version ships; any other seed is generated on first use."""


def tables_fingerprint(conn: sqlite3.Connection, table_keys: Mapping[str, str]) -> str:
    """The canonical dump's SHA-256 over ``table_keys`` (table: ORDER BY key), for every version's tables."""
    digest = hashlib.sha256()
    for table, key in table_keys.items():
        cursor = conn.execute(f"SELECT * FROM {table} ORDER BY {key}")
        columns = [c[0] for c in cursor.description]
        for row in cursor:
            digest.update(json.dumps(dict(zip(columns, row, strict=True)), sort_keys=True, ensure_ascii=False).encode())
            digest.update(b"\n")
    return digest.hexdigest()


def connect_bytes(blob: bytes) -> sqlite3.Connection:
    """A private, writable in-memory copy of a serialized database, with foreign keys enforced."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.deserialize(blob)
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def stripped_template(
    seed_bytes: bytes, hidden: Sequence[str], *additions: Callable[[sqlite3.Connection], None]
) -> bytes:
    """The seed with the invoices' ``hidden`` columns dropped, ``additions`` applied, and vacuumed (so no free
    page still holds the hidden bytes), serialized."""
    conn = connect_bytes(seed_bytes)
    for column in hidden:
        conn.execute(f"ALTER TABLE invoices DROP COLUMN {column}")
    for add in additions:
        add(conn)
    conn.execute("VACUUM")
    blob = conn.serialize()
    conn.close()
    return blob
