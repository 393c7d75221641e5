"""Invariants of the books that must hold after every step, whatever the agent did.

Used by the property tests and by the soak run (``benchmarks/soak.py``). Each check compares the episode's
books with the episode template (the books at reset):

- every approved invoice has exactly its 3 ledger lines, and they balance (debits = credits = gross);
- every PO's invoiced amount is its reset value plus the nets approved against it in this episode;
- decisions only ever leave ``received``: an invoice whose state changed was ``received`` at reset;
- invoices the episode did not write are unchanged;
- the audit log holds exactly one row per successful write, naming the written invoice;
- the records that the ``get_*`` tools serve from memory equal the books (``read_model.py``);
- the invoice counts per status that ``list_invoices`` reports equal the books (``status_counts.py``).
"""

from __future__ import annotations

import sqlite3
from collections import Counter

from ..shared.db import connect_bytes
from .episode import InvoiceEpisode
from .read_model import stale_records
from .status_counts import status_count_problems

_INVOICE_STATE = "SELECT invoice_id, status, reason_code, assigned_to, po_number, net_cents FROM invoices"


def check_invariants(episode: InvoiceEpisode, template: bytes) -> list[str]:
    """Every violated invariant, one sentence each; empty means the books are consistent."""
    conn = episode.conn
    start = connect_bytes(template)
    try:
        before = {row[0]: row for row in start.execute(_INVOICE_STATE)}
        po_before = dict(start.execute("SELECT po_number, net_invoiced_cents FROM purchase_orders").fetchall())
    finally:
        start.close()
    after = {row[0]: row for row in conn.execute(_INVOICE_STATE)}
    written = [iid for iid, row in after.items() if row != before[iid]]
    problems = _transition_problems(before, after, written)
    problems += _ledger_problems(conn, before, after)
    problems += _po_problems(conn, po_before, before, after, written)
    problems += _audit_problems(conn, written)
    problems += stale_records(episode.records)
    problems += status_count_problems(conn)
    return problems


def _transition_problems(
    before: dict[str, tuple[object, ...]], after: dict[str, tuple[object, ...]], written: list[str]
) -> list[str]:
    problems = [f"{iid} changed from status {before[iid][1]}" for iid in written if before[iid][1] != "received"]
    problems += [f"{iid} changed but is still received" for iid in written if after[iid][1] == "received"]
    return problems


def _ledger_problems(
    conn: sqlite3.Connection, before: dict[str, tuple[object, ...]], after: dict[str, tuple[object, ...]]
) -> list[str]:
    lines: dict[str, list[tuple[int, int]]] = {}
    for iid, debit, credit in conn.execute("SELECT invoice_id, debit_cents, credit_cents FROM ledger"):
        lines.setdefault(iid, []).append((debit, credit))
    problems = []
    for iid, row in after.items():
        posted = lines.get(iid, [])
        if row[1] == "approved":
            gross = conn.execute("SELECT gross_cents FROM invoices WHERE invoice_id = ?", (iid,)).fetchone()[0]
            debit, credit = sum(d for d, _ in posted), sum(c for _, c in posted)
            if len(posted) != 3 or debit != credit or credit != gross:
                problems.append(f"{iid} approved with {len(posted)} ledger lines, debit {debit}, credit {credit}")
        elif posted:
            problems.append(f"{iid} is {row[1]} but has {len(posted)} ledger lines")
    return problems


def _po_problems(
    conn: sqlite3.Connection,
    po_before: dict[str, int],
    before: dict[str, tuple[object, ...]],
    after: dict[str, tuple[object, ...]],
    written: list[str],
) -> list[str]:
    added: Counter[str] = Counter()
    for iid in written:
        if after[iid][1] == "approved" and after[iid][4] in po_before:
            added[str(after[iid][4])] += int(after[iid][5])  # type: ignore[call-overload]
    problems = []
    for po, invoiced in conn.execute("SELECT po_number, net_invoiced_cents FROM purchase_orders"):
        if invoiced != po_before[po] + added[po]:
            problems.append(f"PO {po} invoiced {invoiced}, expected {po_before[po]} + {added[po]}")
    return problems


def _audit_problems(conn: sqlite3.Connection, written: list[str]) -> list[str]:
    audited = Counter(row[0] for row in conn.execute("SELECT invoice_id FROM audit_log"))
    problems = [f"{iid} written but audited {audited[iid]} times" for iid in written if audited[iid] != 1]
    problems += [f"{iid} audited but unchanged" for iid in audited if iid not in written]
    return problems
