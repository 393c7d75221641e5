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
from typing import Any

from ..grading import LedgerKey, ReportTexts, ledger_multiset, report_rows
from .db import CAPTURE_FIELDS

InvoiceState = tuple[Any, ...]  # status, reason, assignee, credited, captured fields...


@dataclass(frozen=True)
class BookState:
    """v0's graded books with more in each state: an invoice's captured fields and credited amount, a PO's
    line quantities. Compared and reported by v0's ``compare`` and ``report_rows``."""

    invoices: dict[str, InvoiceState]
    purchase_orders: dict[str, tuple[Any, ...]]
    ledger: Counter[LedgerKey]


def book_state(conn: sqlite3.Connection) -> BookState:
    fields = ", ".join(CAPTURE_FIELDS)
    invoices = {
        row[0]: tuple(row[1:])
        for row in conn.execute(
            f"SELECT invoice_id, status, reason_code, assigned_to, credited_cents, {fields} FROM invoices"
        )
    }
    quantities: dict[str, list[int]] = {}
    for po, qty in conn.execute("SELECT po_number, invoiced_qty FROM po_lines ORDER BY po_number, line_no"):
        quantities.setdefault(po, []).append(qty)
    pos = {
        row[0]: (row[1], row[2], tuple(quantities.get(row[0], ())))
        for row in conn.execute("SELECT po_number, net_invoiced_cents, status FROM purchase_orders")
    }
    return BookState(invoices, pos, ledger_multiset(conn))


def failure_report(final: BookState, gold: BookState, scope: Sequence[str]) -> list[dict[str, Any]]:
    """One row per difference: work-order invoices, collateral invoices, POs, ledger lines. Empty on 1.0. v1's
    states are longer tuples than v0's, so they are worded generically (``_text``)."""
    return report_rows(final, gold, scope, ReportTexts(_text, _text, _line_text))


def _line_text(key: LedgerKey, count: int) -> str:
    return f"{count} x {key[1:]}"


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return " ".join("-" if part is None else str(part) for part in value)
    return str(value)
