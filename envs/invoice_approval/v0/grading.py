"""Grading by final state only: the books the agent leaves behind against the books the gold path leaves.

Compared exactly: ``status``, ``reason_code`` and ``assigned_to`` of every invoice (in scope or not: collateral
damage fails), every PO's ``net_invoiced_cents`` and ``status``, and the ledger as a multiset of
``(invoice_id, account, debit_cents, credit_cents)``. Not compared: the audit log, comments, ledger texts
and row IDs. The reward is 1.0 on an exact match, else 0.0; the diagnostics explain a 0.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..shared.grading import LedgerKey, ReportTexts, ledger_multiset, report_rows

InvoiceState = tuple[str, str | None, str | None]
PoState = tuple[int, str]


@dataclass(frozen=True)
class BookState:
    """The graded part of the books."""

    invoices: dict[str, InvoiceState]
    purchase_orders: dict[str, PoState]
    ledger: Counter[LedgerKey]


def book_state(conn: sqlite3.Connection) -> BookState:
    invoices = {
        row[0]: (row[1], row[2], row[3])
        for row in conn.execute("SELECT invoice_id, status, reason_code, assigned_to FROM invoices")
    }
    pos = {
        row[0]: (row[1], row[2])
        for row in conn.execute("SELECT po_number, net_invoiced_cents, status FROM purchase_orders")
    }
    return BookState(invoices, pos, ledger_multiset(conn))


def failure_report(final: BookState, gold: BookState, scope: Sequence[str]) -> list[dict[str, Any]]:
    """Every difference between the final books and the gold books, one row each, in a fixed order: the work
    order's invoices, then collateral changes to other invoices, then purchase orders, then ledger lines.
    Empty exactly when the books match (the reward is 1.0)."""
    return report_rows(final, gold, scope, ReportTexts(_invoice_text, _po_text, _line_text))


def _invoice_text(state: InvoiceState | None) -> str:
    if state is None:
        return "no such invoice"
    status, reason, assignee = state
    return " ".join(part for part in (status, reason, assignee) if part)


def _po_text(state: PoState | None) -> str:
    return "no such PO" if state is None else f"{state[1]}, invoiced net {state[0]} cents"


def _line_text(key: LedgerKey, count: int) -> str:
    _, account, debit, credit = key
    line = f"account {account} debit {debit} credit {credit} (cents)"
    return line if count == 1 else f"{count} x {line}"
