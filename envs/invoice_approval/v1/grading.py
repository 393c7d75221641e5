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

from ...core import Grade
from .db import CAPTURE_FIELDS

InvoiceState = tuple[Any, ...]  # status, reason, assignee, credited, captured fields...
LedgerKey = tuple[str, str, int, int]


@dataclass(frozen=True)
class BookState:
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
    ledger: Counter[LedgerKey] = Counter(
        (row[0], row[1], row[2], row[3])
        for row in conn.execute("SELECT invoice_id, account, debit_cents, credit_cents FROM ledger")
    )
    return BookState(invoices, pos, ledger)


def compare(final: BookState, gold: BookState, scope: Sequence[str]) -> Grade:
    in_scope = set(scope)
    wrong = [iid for iid in scope if final.invoices.get(iid) != gold.invoices.get(iid)]
    collateral = [iid for iid, s in final.invoices.items() if iid not in in_scope and s != gold.invoices.get(iid)]
    po_mismatches = [n for n, s in final.purchase_orders.items() if s != gold.purchase_orders.get(n)]
    ledger_diff = (final.ledger - gold.ledger) + (gold.ledger - final.ledger)
    matches = not wrong and not collateral and not po_mismatches and not ledger_diff
    diagnostics: dict[str, Any] = {
        "scope_correct": (len(scope) - len(wrong)) / len(scope) if scope else 1.0,
        "scope_size": len(scope),
        "collateral_changes": len(collateral),
        "po_mismatches": len(po_mismatches),
        "ledger_mismatches": sum(ledger_diff.values()),
        "wrong_invoices": wrong[:50],
    }
    return Grade(1.0 if matches else 0.0, {"state_matches": 1.0 if matches else 0.0}, diagnostics)


def failure_report(final: BookState, gold: BookState, scope: Sequence[str]) -> list[dict[str, Any]]:
    """One row per difference: work-order invoices, collateral invoices, POs, ledger lines. Empty on 1.0."""
    in_scope = set(scope)
    rows = [
        _row("invoice", i, gold.invoices.get(i), final.invoices.get(i))
        for i in scope
        if final.invoices.get(i) != gold.invoices.get(i)
    ]
    rows += [
        _row("collateral", i, gold.invoices.get(i), s)
        for i, s in sorted(final.invoices.items())
        if i not in in_scope and s != gold.invoices.get(i)
    ]
    rows += [
        _row("purchase_order", n, gold.purchase_orders.get(n), s)
        for n, s in sorted(final.purchase_orders.items())
        if s != gold.purchase_orders.get(n)
    ]
    extra, missing = final.ledger - gold.ledger, gold.ledger - final.ledger
    rows += [_row("ledger", k[0], "no such line", f"{n} x {k[1:]}") for k, n in sorted(extra.items())]
    rows += [_row("ledger", k[0], f"{n} x {k[1:]}", "missing") for k, n in sorted(missing.items())]
    return rows


def _row(kind: str, item: str, expected: Any, actual: Any) -> dict[str, Any]:
    return {"kind": kind, "item": item, "expected": _text(expected), "actual": _text(actual)}


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return " ".join("-" if part is None else str(part) for part in value)
    return str(value)
