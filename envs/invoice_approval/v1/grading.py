"""Grading by final state: the books the agent leaves against the books the gold path leaves.

Compared exactly: every invoice's status, reason code, assignee, captured fields and credited amount (in scope
or not: collateral damage fails); every PO's invoiced net and status and every PO line's invoiced quantity; the
ledger as a multiset of (invoice, account, debit, credit). Reward 1.0 on an exact match, else 0.0.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from ...core.assets import asset_path, read_text
from ..shared.book_changes import BookDelta, ledger_changes, logged_records
from ..shared.failure_rows import BookLayout, Field, euros, failure_rows, percent
from ..shared.grading import LedgerKey, ledger_multiset
from ..shared.policy_rules import parse_policy
from .db import CAPTURE_FIELDS

InvoiceState = tuple[Any, ...]  # status, reason, assignee, credited, captured fields...


@dataclass(frozen=True)
class BookState:
    """v0's graded books with more in each state: an invoice's captured fields and credited amount, a PO's
    line quantities. Compared by the shared ``compare``; reported by ``shared/failure_rows.py``."""

    invoices: dict[str, InvoiceState]
    purchase_orders: dict[str, tuple[Any, ...]]
    ledger: Counter[LedgerKey]


_INVOICES = (
    f"SELECT invoice_id, status, reason_code, assigned_to, credited_cents, {', '.join(CAPTURE_FIELDS)} FROM invoices"
)
_POS = "SELECT po_number, net_invoiced_cents, status FROM purchase_orders"
_LINES = "SELECT po_number, invoiced_qty FROM po_lines"


def book_state(conn: sqlite3.Connection) -> BookState:
    """The whole graded books (the template's once per company, the gold path's once per task, and tests)."""
    invoices = {row[0]: tuple(row[1:]) for row in conn.execute(_INVOICES)}
    quantities: dict[str, list[int]] = {}
    for po, qty in conn.execute(f"{_LINES} ORDER BY po_number, line_no"):
        quantities.setdefault(po, []).append(qty)
    pos = {row[0]: (row[1], row[2], tuple(quantities.get(row[0], ()))) for row in conn.execute(_POS)}
    return BookState(invoices, pos, ledger_multiset(conn))


def book_delta(conn: sqlite3.Connection) -> BookDelta:
    """What the episode changed in the graded books, from the change logs in the episode template: the state
    now of every invoice and PO a statement touched (a PO line's change is its PO's), and the ledger lines
    added or removed. Cost follows the changes, not the company (``book_changes.py`` explains the logs)."""
    invoices: dict[str, tuple[Any, ...] | None] = {}
    pos: dict[str, tuple[Any, ...] | None] = {}
    for table, key in logged_records(conn):
        if table == "invoices":
            row = conn.execute(f"{_INVOICES} WHERE invoice_id = ?", (key,)).fetchone()
            invoices[key] = None if row is None else tuple(row[1:])
        else:
            pos[key] = _po_state(conn, key)
    return BookDelta(invoices, pos, ledger_changes(conn))


def _po_state(conn: sqlite3.Connection, po_number: str) -> tuple[Any, ...] | None:
    row = conn.execute(f"{_POS} WHERE po_number = ?", (po_number,)).fetchone()
    if row is None:
        return None
    lines = conn.execute(f"{_LINES} WHERE po_number = ? ORDER BY line_no", (po_number,)).fetchall()
    return (row[1], row[2], tuple(qty for _, qty in lines))


def failure_report(final: BookState, gold: BookState, scope: Sequence[str]) -> list[dict[str, Any]]:
    """Every field where the final books differ from the gold books, one labelled row each (``failure_rows``):
    a decision's fields, a document's captured fields, ledger lines, then PO fields and line quantities. Empty
    exactly when the books match (the reward is 1.0)."""
    return list(failure_rows(final, gold, scope, _layout()))


_CAPTURED = {
    "supplier_invoice_no": Field("supplier invoice no.", "capture"),
    "invoice_date": Field("invoice date", "capture"),
    "po_number": Field("PO number", "capture"),
    "net_cents": Field("net amount", "capture", euros),
    "vat_rate": Field("VAT rate", "capture", percent),
    "vat_cents": Field("VAT", "capture", euros),
    "gross_cents": Field("gross amount", "capture", euros),
    "corrects_no": Field("corrects invoice no.", "capture"),
}


@cache
def _layout() -> BookLayout:
    """v1's states (``_INVOICES``, ``_POS``): an invoice is (status, reason code, assignee, credited, then the
    captured fields in ``CAPTURE_FIELDS`` order), a PO (invoiced net, status, invoiced quantity per line)."""
    decision = (Field("status"), Field("reason code"), Field("escalated to"), Field("credited", "invoice", euros))
    return BookLayout(
        invoice=(*decision, *(_CAPTURED[name] for name in CAPTURE_FIELDS)),
        purchase_order=(
            Field("invoiced net", "purchase order", euros),
            Field("status", "purchase order"),
            Field("invoiced quantity", "purchase order"),
        ),
        rules=parse_policy(read_text(asset_path("invoice_approval", "v1", "policy.md"))),
    )
