"""Invariants of InvoiceApproval-v1's books that must hold after every step, whatever the agent did.

Used by the soak run and the fuzz test (``benchmarks/soak.py``, ``tests/test_fuzz.py``). Each check compares
the episode's books with the episode template (the books at reset):

- the ledger balances for every document (debits = credits), whatever was approved, right or wrong: the
  tools apply no policy, so a wrong approval must still post a balanced entry;
- decisions only ever leave ``received``: a document whose status changed was ``received`` at reset;
- a document that was not ``received`` at reset is unchanged (history is never rewritten: no capture, no
  decision, no credit on it except through a credit note's approval, which only raises ``credited_cents``).
"""

from __future__ import annotations

import sqlite3

from ..shared.db import connect_bytes

_STATE = (
    "SELECT invoice_id, status, reason_code, assigned_to, supplier_invoice_no, net_cents, gross_cents FROM invoices"
)


def check_invariants(conn: sqlite3.Connection, template: bytes) -> list[str]:
    """Every violated invariant, one sentence each; empty means the books are consistent."""
    start = connect_bytes(template)
    try:
        before = {row[0]: row for row in start.execute(_STATE)}
    finally:
        start.close()
    after = {row[0]: row for row in conn.execute(_STATE)}
    problems = [
        f"ledger of {invoice_id} does not balance: debits {debit}, credits {credit}"
        for invoice_id, debit, credit in conn.execute(
            "SELECT invoice_id, sum(debit_cents), sum(credit_cents) FROM ledger GROUP BY invoice_id "
            "HAVING sum(debit_cents) != sum(credit_cents) ORDER BY invoice_id"
        )
    ]
    for invoice_id, row in sorted(after.items()):
        old = before.get(invoice_id)
        if old is None:
            problems.append(f"{invoice_id} appeared during the episode")
        elif old[1] != "received" and row != old:
            problems.append(f"{invoice_id} was {old[1]} at reset and changed to {row[1:]}")
    problems += [f"{invoice_id} disappeared during the episode" for invoice_id in sorted(before.keys() - after.keys())]
    return problems
