"""The seed database of a generated world: the company's books in SQLite, hidden columns included (offline)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ...shared.entities import World
from ..db import create_schema


def build_seed_db(world: World) -> sqlite3.Connection:
    """The seed database of a generated world, in memory (hidden columns included).

    sqlite-utils is imported here, not at module level: it imports pandas when pandas is installed (~60 MB
    and half a second), and an episode never needs it, only generation does."""
    import sqlite_utils

    conn = sqlite3.connect(":memory:")
    conn.execute("PRAGMA foreign_keys=ON")
    create_schema(conn)
    db = sqlite_utils.Database(conn)
    db.table("approvers").insert_all([vars(a) for a in world.approvers])
    db.table("suppliers").insert_all([{**vars(s), "is_blocked": int(s.is_blocked)} for s in world.suppliers])
    db.table("purchase_orders").insert_all(
        [{**vars(p), "order_date": p.order_date.isoformat()} for p in world.purchase_orders]
    )
    db.table("invoices").insert_all([_invoice_row(i) for i in world.invoices])
    db.table("ledger").insert_all([vars(line) for line in world.ledger])
    conn.commit()
    return conn


def _invoice_row(invoice: Any) -> dict[str, Any]:
    row = {k: v for k, v in vars(invoice).items() if k != "order_key"}
    row["invoice_date"] = invoice.invoice_date.isoformat()
    row["received_date"] = invoice.received_date.isoformat()
    return row
