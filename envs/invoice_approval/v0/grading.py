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
from functools import cache
from typing import Any

from ...core.assets import asset_path, read_text
from ..shared.failure_rows import BookLayout, Field, euros, failure_rows
from ..shared.grading import LedgerKey, ledger_multiset
from ..shared.policy_rules import parse_policy

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
    """Every field where the final books differ from the gold books, one labelled row each (``failure_rows``):
    the work order's invoices and any other invoice changed, their ledger lines, then purchase orders. Empty
    exactly when the books match (the reward is 1.0)."""
    return list(failure_rows(final, gold, scope, _layout()))


@cache
def _layout() -> BookLayout:
    """v0's states: an invoice is (status, reason code, assignee), a PO (invoiced net, status)."""
    return BookLayout(
        invoice=(Field("status"), Field("reason code"), Field("escalated to")),
        purchase_order=(Field("invoiced net", "purchase order", euros), Field("status", "purchase order")),
        rules=parse_policy(read_text(asset_path("invoice_approval", "v0", "policy.md"))),
    )
