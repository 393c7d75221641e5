"""The 14 tools of the v2 clerk: v1's, with two listers that cannot skip and a capture that validates.

``list_invoices`` and ``list_goods_receipts`` give cursors bound to the listing they page (``paging.py``): once a
decision moves documents into or out of that listing, its old cursors are refused, so no page is ever skipped.
``capture_invoice`` writes dates and identifiers only in the form the policy states (``capture_rules.py``).
Every other tool is v1's own object, unchanged; the schemas keep v1's order, names and arguments.
"""

from __future__ import annotations

from typing import Annotated

from ...core import MaxLen, Range, Tool, tool
from ..shared.tool_steps import received_invoice
from ..v1 import tools as v1
from ..v1.episode import V1Episode
from . import capture_rules
from .paging import Listing, listing

INVOICE_PAGE = v1.INVOICE_PAGE
RECEIPT_PAGE = v1.RECEIPT_PAGE


def invoice_listing(ctx: V1Episode, status: str, supplier_id: str, inbox: str) -> tuple[Listing, str, list[str]]:
    """The invoice listing of these filters as it stands (refusing an unknown supplier or inbox), with its SQL
    condition and parameters."""
    where, params = ("status = ?", [status]) if status else ("1 = 1", [])
    if supplier_id:
        ctx.require("SELECT 1 FROM suppliers WHERE supplier_id = ?", (supplier_id,), f"supplier '{supplier_id}'")
        where += " AND supplier_id = ?"
        params.append(supplier_id)
    if inbox:
        ctx.require("SELECT 1 FROM invoices WHERE inbox = ? LIMIT 1", (inbox,), f"inbox '{inbox}'")
        where += " AND inbox = ?"
        params.append(inbox)
    scope = f"invoices|{status}|{supplier_id}|{inbox}"
    return (
        listing(ctx.conn, scope, f"SELECT invoice_id FROM invoices WHERE {where} ORDER BY invoice_id", params),
        where,
        params,
    )


def receipt_listing(ctx: V1Episode, po_number: str) -> Listing:
    """The goods-receipt listing of a PO as it stands (refusing an unknown PO)."""
    ctx.require("SELECT 1 FROM purchase_orders WHERE po_number = ?", (po_number,), f"purchase order '{po_number}'")
    keys = "SELECT receipt_id FROM goods_receipts WHERE po_number = ? ORDER BY receipt_id"
    return listing(ctx.conn, f"receipts|{po_number}", keys, (po_number,))


@tool()
def list_invoices(
    ctx: V1Episode, status: v1.AnyStatus = "", supplier_id: str = "", inbox: str = "", cursor: v1.Cursor = ""
) -> str:
    """List invoices and credit notes, 10 per page, ordered by invoice ID.

    Invoice IDs are given when an invoice is captured, not when it arrives, so this order is not the processing
    order (see the policy). When "next_cursor" is not null there are more: call again with the same filters and
    that cursor. A cursor holds only while the listing is unchanged: after a decision that moves a document into
    or out of it (a status filter), it is refused; list again from the first page. Use it to find earlier
    invoices of a supplier (duplicates, the original of a credit note) or everything waiting in an inbox.
    Amounts are integer euro cents; fields not yet captured are null.

    Args:
        status: Only documents in this status; empty for every status.
        supplier_id: Only this supplier's documents (e.g. "K-70123"); empty for all suppliers.
        inbox: Only documents in this inbox (e.g. "PE-104"); empty for all inboxes.
        cursor: Empty for the first page, else the "next_cursor" of the previous page.
    """
    now, where, params = invoice_listing(ctx, status, supplier_id, inbox)
    offset = now.offset(cursor, "list_invoices")
    rows = ctx.json_rows(
        v1._SUMMARY,
        f"FROM invoices WHERE {where} ORDER BY invoice_id LIMIT ? OFFSET ?",
        (*params, INVOICE_PAGE, offset),
    )
    following = v1._json_str(now.next_cursor(offset, INVOICE_PAGE))
    return f'{{"total": {now.total}, "invoices": {rows}, "next_cursor": {following}}}'


@tool()
def list_goods_receipts(ctx: V1Episode, po_number: str, cursor: v1.Cursor = "") -> str:
    """The goods receipts booked against a purchase order (what the warehouse received, per PO line, with
    quantity and date), 5 per page in receipt order. When "next_cursor" is not null, call again with it (it is
    refused if the receipts changed meanwhile: list again from the first page).

    Args:
        po_number: The PO number, e.g. "4500123456".
        cursor: Empty for the first page, else the "next_cursor" of the previous page.
    """
    now = receipt_listing(ctx, po_number)
    offset = now.offset(cursor, "list_goods_receipts")
    rows = ctx.json_rows(
        "receipt_id, line_no, quantity, receipt_date",
        "FROM goods_receipts WHERE po_number = ? ORDER BY receipt_id LIMIT ? OFFSET ?",
        (po_number, RECEIPT_PAGE, offset),
    )
    following = v1._json_str(now.next_cursor(offset, RECEIPT_PAGE))
    return f'{{"total": {now.total}, "receipts": {rows}, "next_cursor": {following}}}'


@tool(writes=True)
def capture_invoice(
    ctx: V1Episode,
    invoice_id: str,
    supplier_invoice_no: Annotated[str, MaxLen(40)],
    invoice_date: Annotated[str, MaxLen(10)],
    net_cents: v1.Amount,
    vat_rate: Annotated[int, Range(0, 100)],
    vat_cents: v1.Amount,
    gross_cents: v1.Amount,
    po_number: Annotated[str, MaxLen(20)] = "",
    corrects_no: Annotated[str, MaxLen(40)] = "",
) -> str:
    """Write a received document's fields into the books exactly as its document prints them (replacing
    whatever was captured). Amounts as positive euro cents, as printed (a credit note's amounts too). Dates and
    numbers are refused unless they have the form the policy states (step 0); nothing is written then.

    Args:
        invoice_id: The internal ID of a received invoice or credit note.
        supplier_invoice_no: The supplier's number as printed ("Rechnungsnummer"), without spaces around it.
        invoice_date: The invoice date as YYYY-MM-DD, not after the document's received date and at most 366
            days before it.
        net_cents: The printed net total, in cents.
        vat_rate: The printed VAT rate in percent (0 if none).
        vat_cents: The printed VAT amount, in cents.
        gross_cents: The printed gross total, in cents.
        po_number: The printed order number ("Bestellnummer", 10 digits starting with 45); empty if none is
            printed.
        corrects_no: For a credit note, the printed number of the invoice it corrects; else empty.
    """
    record = received_invoice(ctx, invoice_id, "changed")
    values = (
        capture_rules.printed_number("supplier_invoice_no", supplier_invoice_no),
        capture_rules.invoice_date(invoice_date, record["received_date"]),
        capture_rules.po_number(po_number),
        capture_rules.printed_number("corrects_no", corrects_no, optional=True),
        net_cents,
        vat_rate,
        vat_cents,
        gross_cents,
    )
    ctx.conn.execute(
        "UPDATE invoices SET supplier_invoice_no = ?, invoice_date = ?, po_number = ?, corrects_no = ?, "
        "net_cents = ?, vat_rate = ?, vat_cents = ?, gross_cents = ? WHERE invoice_id = ?",
        (*values, invoice_id),
    )
    ctx.audit("capture_invoice", invoice_id, {"supplier_invoice_no": supplier_invoice_no, "net_cents": net_cents})
    return f"Captured {invoice_id}."


TOOLS: tuple[Tool, ...] = (
    list_invoices,
    v1.get_invoice,
    v1.get_document,
    capture_invoice,
    v1.search_suppliers,
    v1.get_supplier,
    v1.get_purchase_order,
    list_goods_receipts,
    v1.list_approvers,
    v1.whoami,
    v1.approve_invoice,
    v1.reject_invoice,
    v1.hold_invoice,
    v1.escalate_invoice,
)
