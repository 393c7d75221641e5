"""The v1 books: schema, fingerprint, and the episode template (the seed without its hidden columns).

New beside v0's tables: purchase-order lines with invoiced quantities, goods receipts, the documents as they
arrived (JSON of ``InvoiceDocument``), and on each invoice its kind, the invoice a credit note corrects, the
inbox it sits in and how much of it has been credited. The captured fields of an invoice may be NULL (not yet
captured). Hidden columns (``trap``, ``intended``, ``design_actor``) never reach an episode.
"""

from __future__ import annotations

import sqlite3
from functools import cache

from ...core.assets import asset_path, read_text
from ..shared.book_changes import add_ledger_log, add_record_log
from ..shared.db import stripped_template, tables_fingerprint

CANONICAL_SEED = 42
HIDDEN_COLUMNS = ("trap", "intended", "design_actor")
TABLE_KEYS = {
    "approvers": "approver_id",
    "suppliers": "supplier_id",
    "purchase_orders": "po_number",
    "po_lines": "po_number, line_no",
    "goods_receipts": "receipt_id",
    "invoices": "invoice_id",
    "documents": "invoice_id",
    "ledger": "line_id",
    "audit_log": "entry_id",
}
ASSET_DIR = "invoice_approval"
SEED_FILE = "v1/seed.sqlite"
FINGERPRINT_FILE = "v1/seed.sha256"
CAPTURE_FIELDS = (
    "supplier_invoice_no",
    "invoice_date",
    "po_number",
    "net_cents",
    "vat_rate",
    "vat_cents",
    "gross_cents",
    "corrects_no",
)


def create_schema(conn: sqlite3.Connection) -> None:
    """v1's whole schema, written out rather than built from v0's: v1 changes v0's purchase-order and invoice
    tables, and each version's schema is read (and stored in its seed) as one piece."""
    conn.executescript("""
    CREATE TABLE approvers (approver_id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL,
        limit_cents INTEGER);
    CREATE TABLE suppliers (supplier_id TEXT PRIMARY KEY, creditor_no TEXT NOT NULL, name TEXT NOT NULL,
        street TEXT NOT NULL, postal_code TEXT NOT NULL, city TEXT NOT NULL, country TEXT NOT NULL,
        vat_id TEXT NOT NULL, iban TEXT NOT NULL, payment_terms TEXT NOT NULL, category TEXT NOT NULL,
        is_blocked INTEGER NOT NULL CHECK (is_blocked IN (0, 1)), block_reason TEXT);
    CREATE TABLE purchase_orders (po_number TEXT PRIMARY KEY,
        supplier_id TEXT NOT NULL REFERENCES suppliers(supplier_id), order_date TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('goods', 'services')), cost_center TEXT NOT NULL,
        description TEXT NOT NULL, net_cents INTEGER NOT NULL, net_invoiced_cents INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('open', 'closed')));
    CREATE TABLE po_lines (po_number TEXT NOT NULL REFERENCES purchase_orders(po_number),
        line_no INTEGER NOT NULL, description TEXT NOT NULL, quantity INTEGER NOT NULL, unit TEXT NOT NULL,
        unit_price_cents INTEGER NOT NULL, invoiced_qty INTEGER NOT NULL, PRIMARY KEY (po_number, line_no));
    CREATE TABLE goods_receipts (receipt_id TEXT PRIMARY KEY,
        po_number TEXT NOT NULL REFERENCES purchase_orders(po_number), line_no INTEGER NOT NULL,
        quantity INTEGER NOT NULL, receipt_date TEXT NOT NULL);
    CREATE INDEX receipts_by_po ON goods_receipts (po_number, receipt_id);
    CREATE TABLE invoices (invoice_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
        supplier_id TEXT NOT NULL REFERENCES suppliers(supplier_id), inbox TEXT NOT NULL,
        received_date TEXT NOT NULL, category TEXT NOT NULL, expense_account TEXT NOT NULL,
        supplier_invoice_no TEXT, invoice_date TEXT, po_number TEXT, corrects_no TEXT,
        net_cents INTEGER, vat_rate INTEGER, vat_cents INTEGER, gross_cents INTEGER,
        currency TEXT NOT NULL DEFAULT 'EUR', credited_cents INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL CHECK (status IN ('received', 'approved', 'rejected', 'on_hold', 'escalated')),
        reason_code TEXT, assigned_to TEXT REFERENCES approvers(approver_id), decision_comment TEXT,
        trap TEXT, intended TEXT, design_actor TEXT);
    CREATE INDEX invoices_by_supplier ON invoices (supplier_id, invoice_id);
    CREATE INDEX invoices_by_inbox ON invoices (inbox, invoice_id);
    CREATE TABLE documents (invoice_id TEXT PRIMARY KEY REFERENCES invoices(invoice_id), body TEXT NOT NULL);
    CREATE TABLE ledger (line_id INTEGER PRIMARY KEY, invoice_id TEXT NOT NULL REFERENCES invoices(invoice_id),
        account TEXT NOT NULL, debit_cents INTEGER NOT NULL, credit_cents INTEGER NOT NULL, text TEXT NOT NULL);
    CREATE INDEX ledger_by_invoice ON ledger (invoice_id);
    CREATE TABLE audit_log (entry_id INTEGER PRIMARY KEY, approver_id TEXT NOT NULL, tool TEXT NOT NULL,
        invoice_id TEXT NOT NULL, arguments TEXT NOT NULL);
    """)


def fingerprint(conn: sqlite3.Connection) -> str:
    """SHA-256 of a canonical dump (rows ordered by key, sorted-key JSON): independent of page layout."""
    return tables_fingerprint(conn, TABLE_KEYS)


def episode_template(seed_bytes: bytes) -> bytes:
    """The seed without hidden columns, plus the change logs the grader reads (``grading.book_delta``: which
    invoices, POs and PO lines a statement touched, and the ledger lines added or removed), vacuumed,
    serialized."""
    return stripped_template(seed_bytes, HIDDEN_COLUMNS, _add_change_logs)


def _add_change_logs(conn: sqlite3.Connection) -> None:
    add_record_log(conn, {"invoices": "invoice_id", "purchase_orders": "po_number", "po_lines": "po_number"})
    add_ledger_log(conn)


@cache
def shipped_seed_bytes() -> bytes:
    return asset_path(ASSET_DIR, SEED_FILE).read_bytes()


@cache
def shipped_fingerprint() -> str:
    return read_text(asset_path(ASSET_DIR, FINGERPRINT_FILE)).strip()
