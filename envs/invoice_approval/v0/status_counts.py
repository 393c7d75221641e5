"""How many invoices each status holds, kept by triggers, so ``list_invoices`` need not count them.

Why: ``list_invoices`` reports how many invoices match (``total``). Counting them walks the status index over
every match, which grows with the company: 6.6 µs at the shipped size, 55 µs at 10x, over half a millisecond at
100x, while the page it returns costs the same at every size. The episode template carries one row per status
with its count, and triggers on ``invoices`` adjust it inside the statement that inserts, deletes or re-statuses
an invoice, so it is exactly as transactional as the books (a rolled-back tool call, or a reset's rollback,
leaves it as it was). The count with a supplier filter still comes from the supplier index: one supplier's
invoices are few at any size. ``status_count_problems`` (checked with the other invariants after every step
by the property tests and the soak run) shows that the counts equal the books.
"""

from __future__ import annotations

import sqlite3

COUNTS = "invoice_status_counts"
_ADD_ONE = f"INSERT INTO {COUNTS} VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;"
_TAKE_ONE = f"UPDATE {COUNTS} SET n = n - 1 WHERE status = OLD.status;"


def add_status_counts(conn: sqlite3.Connection) -> None:
    """Create the counts from the books and the triggers that keep them (when the episode template is built)."""
    conn.executescript(f"""
        CREATE TABLE {COUNTS} (status TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO {COUNTS} SELECT status, COUNT(*) FROM invoices GROUP BY status;
        CREATE TRIGGER invoices_counted_insert AFTER INSERT ON invoices BEGIN {_ADD_ONE} END;
        CREATE TRIGGER invoices_counted_delete AFTER DELETE ON invoices BEGIN {_TAKE_ONE} END;
        CREATE TRIGGER invoices_counted_update AFTER UPDATE OF status ON invoices
            WHEN OLD.status IS NOT NEW.status BEGIN {_TAKE_ONE} {_ADD_ONE} END;
    """)


def status_count(conn: sqlite3.Connection, status: str) -> int:
    """How many invoices are in ``status`` now (0 for a status no invoice has had)."""
    row = conn.execute(f"SELECT n FROM {COUNTS} WHERE status = ?", (status,)).fetchone()
    return 0 if row is None else int(row[0])


def status_count_problems(conn: sqlite3.Connection) -> list[str]:
    """Statuses whose kept count differs from the books; empty when the counts are exact."""
    books = dict(conn.execute("SELECT status, COUNT(*) FROM invoices GROUP BY status").fetchall())
    kept = {status: n for status, n in conn.execute(f"SELECT status, n FROM {COUNTS}") if n}
    return [
        f"{status}: {kept.get(status, 0)} invoices counted, {books.get(status, 0)} in the books"
        for status in sorted(books.keys() | kept.keys())
        if kept.get(status, 0) != books.get(status, 0)
    ]
