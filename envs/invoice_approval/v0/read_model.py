"""The records the ``get_*`` tools show (each invoice, supplier and purchase order as JSON), served from memory.

Why: in a vector-env worker, woken with cold caches, every SQLite statement costs several microseconds however
small, and ``json_object`` over 17 columns more; a point read was half of a step. Most records never change
in an episode, so a read need not touch SQLite at all:

- ``snapshot(template)``: the JSON of every record as the episode template holds it, computed once per process
  and company and shared, read-only, by every episode.
- Triggers in the template append the key of every record that an INSERT, UPDATE or DELETE touches to
  ``record_changes``, inside the statement that changes it, so the log is exactly as transactional as the
  books: a rolled-back tool call leaves no entry.
- ``RecordView``: one episode's view, the snapshot plus the records this episode changed. Before a read it
  compares ``conn.total_changes`` (a counter SQLite keeps; reading it runs no SQL) with the value it last
  saw; if anything was written since, it recomputes the newly logged records from the books. Inside a tool's
  write savepoint (``writing``, set by ``episode.savepoint``) it reads the books directly, because a rollback
  could undo what it would remember. (The episode's own transaction is rolled back only by the next reset,
  which starts a new view.) Reads never write.

The grader, the fingerprints and the invariants read the books themselves; ``stale_records``, checked after
every step by the property tests and the soak run, shows that the view equals the books.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from functools import cache

from ..shared.book_changes import CHANGE_LOG
from ..shared.json_sql import json_object_sql

INVOICE_COLUMNS = (
    "invoice_id, supplier_id, supplier_invoice_no, invoice_date, received_date, po_number, "
    "category, expense_account, net_cents, vat_rate, vat_cents, gross_cents, currency, description, "
    "status, reason_code, assigned_to"
)
SUPPLIER_COLUMNS = (
    "supplier_id, creditor_no, name, street, postal_code, city, country, vat_id, iban, "
    "payment_terms, category, is_blocked?, block_reason"
)
PO_COLUMNS = "po_number, supplier_id, order_date, cost_center, description, net_cents, net_invoiced_cents, status"


@dataclass(frozen=True)
class Record:
    """One kind of record: its table, its key column, and the columns its JSON shows (see ``json_object_sql``)."""

    table: str
    key: str
    columns: str
    all_sql: str = field(init=False)  # key and JSON of every record, from the books
    one_sql: str = field(init=False)  # the JSON of one record, from the books

    def __post_init__(self) -> None:
        body = json_object_sql(self.columns)
        object.__setattr__(self, "all_sql", f"SELECT {self.key}, {body} FROM {self.table}")
        object.__setattr__(self, "one_sql", f"SELECT {body} FROM {self.table} WHERE {self.key} = ?")


INVOICE = Record("invoices", "invoice_id", INVOICE_COLUMNS)
SUPPLIER = Record("suppliers", "supplier_id", SUPPLIER_COLUMNS)
PURCHASE_ORDER = Record("purchase_orders", "po_number", PO_COLUMNS)
RECORDS = {record.table: record for record in (INVOICE, SUPPLIER, PURCHASE_ORDER)}

Snapshot = dict[str, dict[str, str]]  # table -> key -> JSON


def add_change_log(conn: sqlite3.Connection) -> None:
    """Create the (empty) change log and the triggers that fill it."""
    conn.execute(f"CREATE TABLE {CHANGE_LOG} (tbl TEXT NOT NULL, key TEXT NOT NULL)")
    for record in RECORDS.values():
        table, key = record.table, record.key
        log = f"INSERT INTO {CHANGE_LOG} VALUES ('{table}', "
        conn.executescript(f"""
            CREATE TRIGGER {table}_logged_insert AFTER INSERT ON {table} BEGIN {log}NEW.{key}); END;
            CREATE TRIGGER {table}_logged_update AFTER UPDATE ON {table} BEGIN
                {log}OLD.{key}); {log}NEW.{key}); END;
            CREATE TRIGGER {table}_logged_delete AFTER DELETE ON {table} BEGIN {log}OLD.{key}); END;
        """)


@cache
def snapshot(template: bytes) -> Snapshot:
    """Every record's JSON in ``template``. Cached per template, like the bundles themselves (one entry per
    company a process loads; a bounded cache would recompute a snapshot on every reset once a training run
    cycles through more companies than it holds). ``bytes`` keeps its hash, so a lookup with the bundle's own
    template object is a dictionary hit."""
    conn = sqlite3.connect(":memory:")
    conn.deserialize(template)
    try:
        return {table: dict(conn.execute(record.all_sql).fetchall()) for table, record in RECORDS.items()}
    finally:
        conn.close()


class RecordView:
    """One episode's records: the shared snapshot plus what this episode changed (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection, base: Snapshot) -> None:
        self.conn = conn
        self.base = base
        self.changed: dict[tuple[str, str], str | None] = {}  # None: the record was deleted
        self.seen = conn.total_changes
        self.log_position = 0  # the template's log is empty; it only ever grows
        self.writing = False  # inside a tool's write savepoint

    def get(self, record: Record, key: str) -> str | None:
        """The record's JSON, or None if there is no such record."""
        if self.conn.total_changes != self.seen:
            if self.writing:
                return self._from_books(record, key)
            self._catch_up()
        if self.changed and (record.table, key) in self.changed:
            return self.changed[record.table, key]
        return self.base[record.table].get(key)

    def _from_books(self, record: Record, key: str) -> str | None:
        row = self.conn.execute(record.one_sql, (key,)).fetchone()
        return None if row is None else str(row[0])

    def fork(self, conn: sqlite3.Connection) -> RecordView:
        """The view of a copy of this episode's books (``conn``): the same snapshot, with every record the
        change log names recomputed from the copy, so the fork serves exactly what this view serves."""
        view = RecordView(conn, self.base)
        view._catch_up()
        return view

    def _catch_up(self) -> None:
        """Recompute the records logged since the last catch-up (released entries only: called outside any
        tool's savepoint)."""
        rows = self.conn.execute(
            f"SELECT rowid, tbl, key FROM {CHANGE_LOG} WHERE rowid > ? ORDER BY rowid", (self.log_position,)
        ).fetchall()
        for table, key in dict.fromkeys((table, key) for _, table, key in rows):
            self.changed[table, key] = self._from_books(RECORDS[table], key)
        if rows:
            self.log_position = rows[-1][0]
        self.seen = self.conn.total_changes


def stale_records(view: RecordView) -> list[str]:
    """Records whose JSON in the view differs from their books, or that exist on one side only; empty when
    the view is exact."""
    problems = []
    for table, record in RECORDS.items():
        live = dict(view.conn.execute(record.all_sql).fetchall())
        keys = live.keys() | view.base[table].keys() | {key for t, key in view.changed if t == table}
        problems += [
            f"{table} {key}: the view shows stale data"
            for key in sorted(keys)
            if view.get(record, key) != live.get(key)
        ]
    return problems
