"""The database: schema, the seed file and its fingerprint, and the per-episode private copy.

The seed (``assets/invoice_approval/v0/seed.sqlite``) holds the whole company including hidden columns that say
which trap each invoice is. An episode never sees them: the episode template is the seed with the hidden
columns dropped and the file vacuumed (so no free page still holds their bytes), serialized once, and every
``reset()`` deserializes those cached bytes into a fresh in-memory connection (~60 µs).
"""

from __future__ import annotations

import sqlite3
from functools import cache

from ...core.assets import asset_path, read_text
from ..shared.book_changes import add_ledger_log
from ..shared.db import stripped_template, tables_fingerprint
from .read_model import add_change_log
from .status_counts import add_status_counts

HIDDEN_COLUMNS = ("trap", "intended", "design_actor")
TABLE_KEYS = {
    "approvers": "approver_id",
    "suppliers": "supplier_id",
    "purchase_orders": "po_number",
    "invoices": "invoice_id",
    "ledger": "line_id",
    "audit_log": "entry_id",
}
ASSET_DIR = ("invoice_approval", "v0")
"""Where v0's shipped files sit under ``assets/``."""
SEED_FILE = "seed.sqlite"
FINGERPRINT_FILE = "seed.sha256"


def create_schema(conn: sqlite3.Connection) -> None:
    """Tables with foreign keys, NOT NULL and CHECK constraints: the DB itself refuses nonsense."""
    conn.executescript("""
    CREATE TABLE approvers (approver_id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL,
        limit_cents INTEGER);
    CREATE TABLE suppliers (supplier_id TEXT PRIMARY KEY, creditor_no TEXT NOT NULL, name TEXT NOT NULL,
        street TEXT NOT NULL, postal_code TEXT NOT NULL, city TEXT NOT NULL, country TEXT NOT NULL,
        vat_id TEXT NOT NULL, iban TEXT NOT NULL, payment_terms TEXT NOT NULL, category TEXT NOT NULL,
        is_blocked INTEGER NOT NULL CHECK (is_blocked IN (0, 1)), block_reason TEXT);
    CREATE TABLE purchase_orders (po_number TEXT PRIMARY KEY,
        supplier_id TEXT NOT NULL REFERENCES suppliers(supplier_id), order_date TEXT NOT NULL,
        cost_center TEXT NOT NULL, description TEXT NOT NULL, net_cents INTEGER NOT NULL,
        net_invoiced_cents INTEGER NOT NULL, status TEXT NOT NULL CHECK (status IN ('open', 'closed')));
    CREATE TABLE invoices (invoice_id TEXT PRIMARY KEY,
        supplier_id TEXT NOT NULL REFERENCES suppliers(supplier_id), supplier_invoice_no TEXT NOT NULL,
        invoice_date TEXT NOT NULL, received_date TEXT NOT NULL, po_number TEXT, category TEXT NOT NULL,
        expense_account TEXT NOT NULL, net_cents INTEGER NOT NULL, vat_rate INTEGER NOT NULL,
        vat_cents INTEGER NOT NULL, gross_cents INTEGER NOT NULL, currency TEXT NOT NULL DEFAULT 'EUR',
        description TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('received', 'approved', 'rejected', 'on_hold', 'escalated')),
        reason_code TEXT, assigned_to TEXT REFERENCES approvers(approver_id), decision_comment TEXT,
        trap TEXT, intended TEXT, design_actor TEXT);
    CREATE INDEX invoices_by_status ON invoices (status, received_date, invoice_id);
    CREATE INDEX invoices_by_supplier ON invoices (supplier_id, status);
    CREATE TABLE ledger (line_id INTEGER PRIMARY KEY, invoice_id TEXT NOT NULL REFERENCES invoices(invoice_id),
        account TEXT NOT NULL, debit_cents INTEGER NOT NULL, credit_cents INTEGER NOT NULL, text TEXT NOT NULL);
    CREATE INDEX ledger_by_invoice ON ledger (invoice_id);
    CREATE TABLE audit_log (entry_id INTEGER PRIMARY KEY, approver_id TEXT NOT NULL, tool TEXT NOT NULL,
        invoice_id TEXT NOT NULL, arguments TEXT NOT NULL);
    """)


def fingerprint(conn: sqlite3.Connection) -> str:
    """SHA-256 of a canonical dump: every table's rows ordered by key, as sorted-key JSON. Independent of
    page layout and SQLite version, unlike the bytes of the file."""
    return tables_fingerprint(conn, TABLE_KEYS)


def episode_template(seed_bytes: bytes) -> bytes:
    """The seed without hidden columns, plus the change logs behind the record view (``read_model.py``) and
    the grader (``book_changes.py``) and the kept counts behind ``list_invoices`` (``status_counts.py``),
    vacuumed, serialized: what every episode starts from."""
    return stripped_template(seed_bytes, HIDDEN_COLUMNS, add_change_log, add_ledger_log, add_status_counts)


@cache
def shipped_seed_bytes() -> bytes:
    """The canonical seed shipped in assets (cached per process)."""
    return asset_path(*ASSET_DIR, SEED_FILE).read_bytes()


@cache
def shipped_fingerprint() -> str:
    return read_text(asset_path(*ASSET_DIR, FINGERPRINT_FILE)).strip()
