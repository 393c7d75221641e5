"""The v1 seed database of a generated world, in memory, hidden columns included (offline)."""

from __future__ import annotations

import sqlite3

from ..company import COMPANY_CITY, COMPANY_NAME, COMPANY_POSTAL, COMPANY_STREET, COMPANY_VAT_ID
from ..db import create_schema
from ..document import DocumentLine, InvoiceDocument, Party
from ..document_json import document_to_json
from .model import V1Invoice, V1World
from .world import history_ledger

BUYER = Party(COMPANY_NAME, COMPANY_STREET, COMPANY_POSTAL, COMPANY_CITY, "DE", COMPANY_VAT_ID)


def document_of(inv: V1Invoice) -> InvoiceDocument:
    s = inv.supplier
    seller = Party(s.name, s.street, s.postal_code, s.city, s.country, s.vat_id if inv.seller_vat_shown else None)
    buyer = BUYER if inv.buyer_vat_shown else Party(BUYER.name, BUYER.street, BUYER.postal_code, BUYER.city, "DE", None)
    return InvoiceDocument(
        kind=inv.kind,  # type: ignore[arg-type]
        seller=seller,
        buyer=buyer,
        supplier_invoice_no=inv.number,
        invoice_date=inv.invoice_date,
        delivery_date=inv.invoice_date,
        po_number=inv.po_number,
        lines=tuple(
            DocumentLine(x.description, x.quantity, x.unit, x.unit_price_cents, x.net_cents, x.po_line)
            for x in inv.lines
        ),
        net_cents=inv.net_cents,
        vat_rate=inv.vat_rate,
        vat_cents=inv.vat_cents,
        gross_cents=inv.gross_cents,
        iban=s.iban,
        payment_terms=s.payment_terms,
        notes=inv.notes,
        corrects_no=inv.corrects_no,
    )


def build_seed_db(world: V1World) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("PRAGMA foreign_keys=ON")
    create_schema(conn)
    conn.executemany(
        "INSERT INTO approvers VALUES (?, ?, ?, ?)",
        [(a.approver_id, a.name, a.role, a.limit_cents) for a in world.approvers],
    )
    conn.executemany(
        "INSERT INTO suppliers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (s.supplier_id, s.creditor_no, s.name, s.street, s.postal_code, s.city, s.country, s.vat_id, s.iban,
             s.payment_terms, s.category, int(s.is_blocked), s.block_reason)
            for s in world.suppliers
        ],
    )  # fmt: skip
    for p in world.purchase_orders:
        conn.execute(
            "INSERT INTO purchase_orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (p.po_number, p.supplier_id, p.order_date.isoformat(), p.kind, p.cost_center, p.description, p.net_cents,
             p.net_invoiced_cents, p.status),
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO po_lines VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (p.po_number, x.line_no, x.description, x.quantity, x.unit, x.unit_price_cents, x.invoiced_qty)
                for x in p.lines
            ],
        )
    conn.executemany(
        "INSERT INTO goods_receipts VALUES (?, ?, ?, ?, ?)",
        [(r.receipt_id, r.po_number, r.line_no, r.quantity, r.receipt_date.isoformat()) for r in world.receipts],
    )
    for inv in world.invoices:
        _insert_invoice(conn, inv)
    conn.executemany(
        "INSERT INTO ledger (invoice_id, account, debit_cents, credit_cents, text) VALUES (?, ?, ?, ?, ?)",
        history_ledger(world),
    )
    conn.commit()
    return conn


def _insert_invoice(conn: sqlite3.Connection, inv: V1Invoice) -> None:
    c = inv.capture or inv.printed()
    conn.execute(
        "INSERT INTO invoices (invoice_id, kind, supplier_id, inbox, received_date, category, expense_account, "
        "supplier_invoice_no, invoice_date, po_number, corrects_no, net_cents, vat_rate, vat_cents, gross_cents, "
        "credited_cents, status, reason_code, assigned_to, trap, intended, design_actor) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (inv.invoice_id, inv.kind, inv.supplier.supplier_id, inv.inbox, inv.received_date.isoformat(), inv.category,
         inv.expense_account, c.supplier_invoice_no, c.invoice_date.isoformat() if c.invoice_date else None,
         c.po_number, c.corrects_no, c.net_cents, c.vat_rate, c.vat_cents, c.gross_cents, inv.credited_cents,
         inv.status, inv.reason_code, inv.assigned_to, inv.trap, inv.intended, inv.design_actor),
    )  # fmt: skip
    conn.execute("INSERT INTO documents VALUES (?, ?)", (inv.invoice_id, document_to_json(document_of(inv))))
