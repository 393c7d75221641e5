"""SQL that builds tool output as JSON inside SQLite: faster than Python dicts plus ``json.dumps``, and the
same text whether a record is read live or from the read model."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=256)
def select_json_sql(columns: str, rest: str) -> str:
    """``SELECT json_object(...) rest``. Cached because the tools pass a handful of fixed column lists and
    clauses: building the text on every call cost a fifth of a read step, and the same string object lets
    sqlite3's statement cache find the compiled statement without hashing a fresh string."""
    return f"SELECT {json_object_sql(columns)} {rest}"


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
