"""What every version's grading shares: the books the agent leaves behind against the books the gold path
leaves, compared exactly (``compare``), and the failure report's rows (``report_rows``). Each version says what
its graded state holds (its ``BookState`` in its own ``grading.py``) and how a report words it.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ...core import Grade

LedgerKey = tuple[str, str, int, int]


class GradedBooks(Protocol):
    """The graded part of any version's books: what ``compare`` and ``report_rows`` need. Each version says
    what an invoice's and a PO's state hold (its own ``BookState``); comparing them is the same."""

    @property
    def invoices(self) -> Mapping[str, tuple[Any, ...]]: ...

    @property
    def purchase_orders(self) -> Mapping[str, tuple[Any, ...]]: ...

    @property
    def ledger(self) -> Counter[LedgerKey]: ...


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
