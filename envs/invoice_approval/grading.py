"""Grading by final state only: the books the agent leaves behind against the books the gold path leaves.

Compared exactly: ``status``, ``reason_code`` and ``assigned_to`` of every invoice (in scope or not: collateral
damage fails), every PO's ``net_invoiced_cents`` and ``status``, and the ledger as a multiset of
``(invoice_id, account, debit_cents, credit_cents)``. Not compared: the audit log, comments, ledger texts
and row IDs. The reward is 1.0 on an exact match, else 0.0; the diagnostics explain a 0.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..core import Grade

InvoiceState = tuple[str, str | None, str | None]
PoState = tuple[int, str]
LedgerKey = tuple[str, str, int, int]


@dataclass(frozen=True)
class BookState:
    """The graded part of the books."""

    invoices: dict[str, InvoiceState]
    purchase_orders: dict[str, PoState]
    ledger: Counter[LedgerKey]


class GradedBooks(Protocol):
    """The graded part of any version's books: what ``compare`` and ``report_rows`` need. Each version says
    what an invoice's and a PO's state hold (its own ``BookState``); comparing them is the same."""

    @property
    def invoices(self) -> Mapping[str, tuple[Any, ...]]: ...

    @property
    def purchase_orders(self) -> Mapping[str, tuple[Any, ...]]: ...

    @property
    def ledger(self) -> Counter[LedgerKey]: ...


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


def ledger_multiset(conn: sqlite3.Connection) -> Counter[LedgerKey]:
    """The ledger as graded in every version: (invoice, account, debit, credit), texts and row IDs left out."""
    return Counter(
        (row[0], row[1], row[2], row[3])
        for row in conn.execute("SELECT invoice_id, account, debit_cents, credit_cents FROM ledger")
    )


def compare(final: GradedBooks, gold: GradedBooks, scope: Sequence[str]) -> Grade:
    """The exact-match reward and diagnostics under stable keys."""
    in_scope = set(scope)
    scope_ok = sum(1 for iid in scope if final.invoices.get(iid) == gold.invoices.get(iid))
    collateral = sorted(
        iid for iid, state in final.invoices.items() if iid not in in_scope and state != gold.invoices.get(iid)
    )
    po_mismatches = sorted(
        num for num, state in final.purchase_orders.items() if state != gold.purchase_orders.get(num)
    )
    ledger_diff = (final.ledger - gold.ledger) + (gold.ledger - final.ledger)
    matches = not collateral and not po_mismatches and not ledger_diff and scope_ok == len(scope)
    diagnostics: dict[str, Any] = {
        "scope_correct": scope_ok / len(scope) if scope else 1.0,
        "scope_size": len(scope),
        "collateral_changes": len(collateral),
        "po_mismatches": len(po_mismatches),
        "ledger_mismatches": sum(ledger_diff.values()),
        "wrong_invoices": [iid for iid in scope if final.invoices.get(iid) != gold.invoices.get(iid)][:50],
    }
    return Grade(1.0 if matches else 0.0, {"state_matches": 1.0 if matches else 0.0}, diagnostics)


def failure_report(final: BookState, gold: BookState, scope: Sequence[str]) -> list[dict[str, Any]]:
    """Every difference between the final books and the gold books, one row each, in a fixed order: the work
    order's invoices, then collateral changes to other invoices, then purchase orders, then ledger lines.
    Empty exactly when the books match (the reward is 1.0)."""
    return report_rows(final, gold, scope, ReportTexts(_invoice_text, _po_text, _line_text))


@dataclass(frozen=True)
class ReportTexts:
    """How a version words an invoice state, a PO state and a ledger line (with its count) in a failure report."""

    invoice: Callable[[Any], str]
    purchase_order: Callable[[Any], str]
    line: Callable[[LedgerKey, int], str]


def report_rows(
    final: GradedBooks, gold: GradedBooks, scope: Sequence[str], texts: ReportTexts
) -> list[dict[str, Any]]:
    """The rows of ``failure_report`` for any version's books, worded by ``texts``."""
    in_scope = set(scope)
    rows = [
        _row("invoice", iid, texts.invoice(gold.invoices.get(iid)), texts.invoice(final.invoices.get(iid)))
        for iid in scope
        if final.invoices.get(iid) != gold.invoices.get(iid)
    ]
    rows += [
        _row("collateral", iid, texts.invoice(gold.invoices.get(iid)), texts.invoice(state))
        for iid, state in sorted(final.invoices.items())
        if iid not in in_scope and state != gold.invoices.get(iid)
    ]
    rows += [
        _row("purchase_order", num, texts.purchase_order(gold.purchase_orders.get(num)), texts.purchase_order(state))
        for num, state in sorted(final.purchase_orders.items())
        if state != gold.purchase_orders.get(num)
    ]
    extra, missing = final.ledger - gold.ledger, gold.ledger - final.ledger
    rows += [_row("ledger", key[0], "no such line", texts.line(key, n)) for key, n in sorted(extra.items())]
    rows += [_row("ledger", key[0], texts.line(key, n), "missing") for key, n in sorted(missing.items())]
    return rows


def _row(kind: str, item: str, expected: str, actual: str) -> dict[str, Any]:
    return {"kind": kind, "item": item, "expected": expected, "actual": actual}


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
