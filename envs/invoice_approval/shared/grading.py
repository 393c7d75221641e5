"""What every version's grading shares: the books the agent leaves behind against the books the gold path
leaves, compared exactly (``compare``). Each version says what its graded state holds (its ``BookState`` in its
own ``grading.py``); the failure report's labelled rows are built in ``failure_rows.py``.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ...core import Grade

LedgerKey = tuple[str, str, int, int]


class GradedBooks(Protocol):
    """The graded part of any version's books: what ``compare`` and the failure rows need. Each version says
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
