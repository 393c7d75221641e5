"""The 15 tools of the v1 accounts-payable clerk. Each docstring is what the model reads.

The tools apply no policy: any decision can be made on any received invoice, and none is refused for what
the policy would say (a wrong VAT amount, a missing note, a credit note without its original). They refuse
only invalid input (unknown IDs, codes outside the enum, malformed dates or cursors) and transitions out of a
status other than ``received``. A refusal is an ``Error: ...`` and changes nothing.
"""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Annotated, Any, Literal

from ...core import MaxLen, Range, Tool, ToolError, tool
from ..shared.json_sql import select_json_sql
from ..shared.numbers import normalize_invoice_number
from ..shared.tool_steps import approver_list, decide, escalate, hold, received_invoice, reject, supplier_matches
from .company import treatment
from .episode import V1Episode
from .paging import next_cursor, read_cursor
from .posting import Line, invoice_lines, mirrored

Status = Literal["received", "approved", "rejected", "on_hold", "escalated"]
AnyStatus = Literal["", "received", "approved", "rejected", "on_hold", "escalated"]
RejectCode = Literal[
    "DUPLICATE",
    "MISSING_PO",
    "INVALID_PO",
    "VAT_ERROR",
    "INVOICE_INCOMPLETE",
    "CREDIT_NO_ORIGINAL",
    "CREDIT_ORIGINAL_REJECTED",
    "CREDIT_EXCEEDS_ORIGINAL",
]
HoldCode = Literal["SUPPLIER_BLOCKED", "PO_EXCEEDED", "QUANTITY_NOT_RECEIVED", "PRICE_VARIANCE", "CREDIT_ORIGINAL_OPEN"]
Comment = Annotated[str, MaxLen(1000)]
Cursor = Annotated[str, MaxLen(64)]
INVOICE_PAGE = 10
RECEIPT_PAGE = 5

_SUMMARY = (
    "invoice_id, kind, supplier_id, inbox, received_date, supplier_invoice_no, corrects_no, po_number, "
    "gross_cents, status, reason_code, assigned_to"
)
_INVOICE = (
    "invoice_id, kind, supplier_id, inbox, received_date, category, expense_account, supplier_invoice_no, "
    "invoice_date, po_number, corrects_no, net_cents, vat_rate, vat_cents, gross_cents, currency, "
    "credited_cents, status, reason_code, assigned_to"
)
_SUPPLIER = (
    "supplier_id, creditor_no, name, street, postal_code, city, country, vat_id, iban, payment_terms, "
    "category, is_blocked?, block_reason"
)
_PO = "po_number, supplier_id, order_date, kind, cost_center, description, net_cents, net_invoiced_cents, status"


def _page(ctx: V1Episode, scope: str, cursor: str, total: int, size: int) -> int:
    offset = read_cursor(scope, cursor)
    if offset > total:
        raise ToolError("cursor is not valid for this listing; call the tool without a cursor to start over")
    return offset


@tool()
def list_invoices(
    ctx: V1Episode, status: AnyStatus = "", supplier_id: str = "", inbox: str = "", cursor: Cursor = ""
) -> str:
    """List invoices and credit notes, 10 per page, ordered by invoice ID.

    Invoice IDs are given when an invoice is captured, not when it arrives, so this order is not the processing
    order (see the policy). When "next_cursor" is not null there are more: call again with the same filters and
    that cursor. Use it to find earlier invoices of a supplier (duplicates, the original of a credit note) or
    everything waiting in an inbox. Amounts are integer euro cents; fields not yet captured are null.

    Args:
        status: Only documents in this status; empty for every status.
        supplier_id: Only this supplier's documents (e.g. "K-70123"); empty for all suppliers.
        inbox: Only documents in this inbox (e.g. "PE-104"); empty for all inboxes.
        cursor: Empty for the first page, else the "next_cursor" of the previous page.
    """
    params = [str(status)] if status else []
    if supplier_id:
        ctx.scalar("SELECT 1 FROM suppliers WHERE supplier_id = ?", (supplier_id,), f"supplier '{supplier_id}'")
        params.append(supplier_id)
    if inbox:
        ctx.scalar("SELECT 1 FROM invoices WHERE inbox = ? LIMIT 1", (inbox,), f"inbox '{inbox}'")
        params.append(inbox)
    count_sql, rows_sql = _listing_sql(bool(status), bool(supplier_id), bool(inbox))
    scope = f"invoices|{status}|{supplier_id}|{inbox}"
    total = ctx.conn.execute(count_sql, params).fetchone()[0]
    offset = _page(ctx, scope, cursor, total, INVOICE_PAGE)
    rows = ctx.json_array(rows_sql, (*params, INVOICE_PAGE, offset))
    following = next_cursor(scope, offset, INVOICE_PAGE, total)
    return f'{{"total": {total}, "invoices": {rows}, "next_cursor": {_json_str(following)}}}'


@cache
def _listing_sql(status: bool, supplier: bool, inbox: bool) -> tuple[str, str]:
    """The count and the page query of ``list_invoices`` for the filters given, built once per combination (the
    same string objects each call, so sqlite3's statement cache finds them without hashing new text)."""
    where = "status = ?" if status else "1 = 1"
    if supplier:
        where += " AND supplier_id = ?"
    if inbox:
        where += " AND inbox = ?"
    rows = select_json_sql(_SUMMARY, f"FROM invoices WHERE {where} ORDER BY invoice_id LIMIT ? OFFSET ?")
    return f"SELECT COUNT(*) FROM invoices WHERE {where}", rows


def _json_str(value: str | None) -> str:
    return "null" if value is None else f'"{value}"'


@tool()
def get_invoice(ctx: V1Episode, invoice_id: str) -> str:
    """Get one invoice or credit note as captured into the books: kind, supplier, inbox, received date,
    category and expense account, and the captured fields (supplier's number, invoice date, PO number, the
    invoice a credit note corrects, net/VAT/gross in euro cents, VAT rate in percent; null while not captured),
    how much of it has been credited (credited_cents), status, reason code and assignee.

    Args:
        invoice_id: The internal ID, e.g. "ER-2026-00042".
    """
    return ctx.json_one(_INVOICE, "FROM invoices WHERE invoice_id = ?", (invoice_id,), f"invoice '{invoice_id}'")


@tool()
def get_document(ctx: V1Episode, invoice_id: str) -> str:
    """The invoice or credit note as the supplier sent it: the text of its PDF (seller and buyer with their VAT
    IDs, number, dates, PO number, the lines with quantity, unit price and PO line, the totals, printed notes).
    German number format: "1.234,56 EUR" is 123456 cents; dates are DD.MM.YYYY.

    Args:
        invoice_id: The internal ID, e.g. "ER-2026-00042".
    """
    body = ctx.scalar("SELECT body FROM documents WHERE invoice_id = ?", (invoice_id,), f"document of '{invoice_id}'")
    return ctx.documents.text(body)


@tool()
def search_suppliers(ctx: V1Episode, query: Annotated[str, MaxLen(100)]) -> str:
    """Find suppliers by part of their name, city, supplier ID or VAT ID (case-insensitive). At most 20
    matches, ordered by supplier ID.

    Args:
        query: Text to look for, at least 2 characters, e.g. "Werkzeug", "Linz", "K-701", "ATU".
    """
    return supplier_matches(ctx, query)


@tool()
def get_supplier(ctx: V1Episode, supplier_id: str) -> str:
    """A supplier's master data: name, address, country, VAT ID, IBAN, payment terms, what it sells
    (category), and whether it is blocked for payment (is_blocked, with the reason).

    Args:
        supplier_id: The supplier ID, e.g. "K-70123".
    """
    return ctx.json_one(_SUPPLIER, "FROM suppliers WHERE supplier_id = ?", (supplier_id,), f"supplier '{supplier_id}'")


@tool()
def get_purchase_order(ctx: V1Episode, po_number: str) -> str:
    """A purchase order: supplier, kind (goods or services), net value, the net already invoiced against it
    (net_invoiced_cents), status (open or closed), and its lines with quantity, unit, unit price and the
    quantity already invoiced (invoiced_qty). Amounts in euro cents. Goods receipts: list_goods_receipts.

    Args:
        po_number: The PO number, e.g. "4500123456".
    """
    head = ctx.json_one(_PO, "FROM purchase_orders WHERE po_number = ?", (po_number,), f"purchase order '{po_number}'")
    lines = ctx.json_rows(
        "line_no, description, quantity, unit, unit_price_cents, invoiced_qty",
        "FROM po_lines WHERE po_number = ? ORDER BY line_no",
        (po_number,),
    )
    return f'{{"purchase_order": {head}, "lines": {lines}}}'


@tool()
def list_goods_receipts(ctx: V1Episode, po_number: str, cursor: Cursor = "") -> str:
    """The goods receipts booked against a purchase order (what the warehouse received, per PO line, with
    quantity and date), 5 per page in receipt order. When "next_cursor" is not null, call again with it.

    Args:
        po_number: The PO number, e.g. "4500123456".
        cursor: Empty for the first page, else the "next_cursor" of the previous page.
    """
    ctx.scalar("SELECT 1 FROM purchase_orders WHERE po_number = ?", (po_number,), f"purchase order '{po_number}'")
    scope = f"receipts|{po_number}"
    total = ctx.conn.execute("SELECT COUNT(*) FROM goods_receipts WHERE po_number = ?", (po_number,)).fetchone()[0]
    offset = _page(ctx, scope, cursor, total, RECEIPT_PAGE)
    rows = ctx.json_rows(
        "receipt_id, line_no, quantity, receipt_date",
        "FROM goods_receipts WHERE po_number = ? ORDER BY receipt_id LIMIT ? OFFSET ?",
        (po_number, RECEIPT_PAGE, offset),
    )
    following = next_cursor(scope, offset, RECEIPT_PAGE, total)
    return f'{{"total": {total}, "receipts": {rows}, "next_cursor": {_json_str(following)}}}'


@tool()
def list_approvers(ctx: V1Episode) -> str:
    """Every approver with role and approval limit (gross, euro cents; null means unlimited), ordered by name."""
    return approver_list(ctx)


@tool()
def whoami(ctx: V1Episode) -> str:
    """Who you act as: approver ID, name, role and approval limit (gross, euro cents; null means unlimited)."""
    return ctx.json_one(
        "approver_id, name, role, limit_cents",
        "FROM approvers WHERE approver_id = ?",
        (ctx.actor["approver_id"],),
        "approver",
    )


def _iso_date(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat() if len(value) == 10 else _bad_date(value)
    except ValueError:
        return _bad_date(value)


def _bad_date(value: str) -> str:
    raise ToolError(f"invoice_date must be a date as YYYY-MM-DD, e.g. 2026-03-14 (got {value[:40]!r})")


Amount = Annotated[int, Range(0, 10**11)]


@tool(writes=True)
def capture_invoice(
    ctx: V1Episode,
    invoice_id: str,
    supplier_invoice_no: Annotated[str, MaxLen(40)],
    invoice_date: Annotated[str, MaxLen(10)],
    net_cents: Amount,
    vat_rate: Annotated[int, Range(0, 100)],
    vat_cents: Amount,
    gross_cents: Amount,
    po_number: Annotated[str, MaxLen(20)] = "",
    corrects_no: Annotated[str, MaxLen(40)] = "",
) -> str:
    """Write a received document's fields into the books exactly as its document prints them (replacing
    whatever was captured). Amounts as positive euro cents, as printed (a credit note's amounts too).

    Args:
        invoice_id: The internal ID of a received invoice or credit note.
        supplier_invoice_no: The supplier's number as printed ("Rechnungsnummer").
        invoice_date: The invoice date as YYYY-MM-DD.
        net_cents: The printed net total, in cents.
        vat_rate: The printed VAT rate in percent (0 if none).
        vat_cents: The printed VAT amount, in cents.
        gross_cents: The printed gross total, in cents.
        po_number: The printed order number ("Bestellnummer"); empty if none is printed.
        corrects_no: For a credit note, the printed number of the invoice it corrects; else empty.
    """
    received_invoice(ctx, invoice_id, "changed")
    if not supplier_invoice_no.strip():
        raise ToolError("supplier_invoice_no must not be empty")
    values = (
        supplier_invoice_no,
        _iso_date(invoice_date),
        po_number or None,
        corrects_no or None,
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


def _post(ctx: V1Episode, inv: dict[str, Any]) -> None:
    country = ctx.scalar("SELECT country FROM suppliers WHERE supplier_id = ?", (inv["supplier_id"],), "supplier")
    kind = treatment(country, inv["category"])
    lines: list[Line] = invoice_lines(
        kind, inv["category"], inv["expense_account"], inv["net_cents"], inv["vat_cents"], inv["gross_cents"]
    )
    if inv["kind"] == "credit_note":
        lines = mirrored(lines)
    ctx.conn.executemany(
        "INSERT INTO ledger (invoice_id, account, debit_cents, credit_cents, text) VALUES (?, ?, ?, ?, ?)",
        [(inv["invoice_id"], x.account, x.debit_cents, x.credit_cents, x.text) for x in lines],
    )


def _update_po(ctx: V1Episode, inv: dict[str, Any]) -> None:
    """Add (an invoice) or take back (a credit note) the net and the document's line quantities on its PO."""
    sign = -1 if inv["kind"] == "credit_note" else 1
    po = inv["po_number"]
    if not po:
        return
    ctx.conn.execute(
        "UPDATE purchase_orders SET net_invoiced_cents = net_invoiced_cents + ? WHERE po_number = ?",
        (sign * inv["net_cents"], po),
    )
    row = ctx.conn.execute("SELECT body FROM documents WHERE invoice_id = ?", (inv["invoice_id"],)).fetchone()
    if row is None:
        return
    for line in ctx.documents.document(row[0]).lines:
        if line.po_line is not None:
            ctx.conn.execute(
                "UPDATE po_lines SET invoiced_qty = invoiced_qty + ? WHERE po_number = ? AND line_no = ?",
                (sign * line.quantity, po, line.po_line),
            )


def _mark_credited(ctx: V1Episode, inv: dict[str, Any]) -> None:
    """A credit note marks the approved invoice of the same supplier whose number it names (normalised)."""
    if inv["kind"] != "credit_note" or not inv["corrects_no"]:
        return
    key = normalize_invoice_number(inv["corrects_no"])
    for row in ctx.conn.execute(
        "SELECT invoice_id, supplier_invoice_no FROM invoices WHERE supplier_id = ? AND kind = 'invoice' "
        "AND status = 'approved' AND supplier_invoice_no IS NOT NULL ORDER BY received_date, invoice_id",
        (inv["supplier_id"],),
    ).fetchall():
        if normalize_invoice_number(row[1]) == key:
            ctx.conn.execute(
                "UPDATE invoices SET credited_cents = credited_cents + ? WHERE invoice_id = ?",
                (inv["net_cents"], row[0]),
            )
            return


@tool(writes=True)
def approve_invoice(ctx: V1Episode, invoice_id: str) -> str:
    """Approve a received invoice or credit note. It posts to the ledger as captured, changes its purchase
    order's invoiced net and quantities (up for an invoice, down for a credit note), and a credit note marks the
    invoice it corrects as credited. It cannot be undone. A document must be captured first.

    Args:
        invoice_id: The internal ID of a received invoice or credit note, e.g. "ER-2026-00042".
    """
    inv = received_invoice(ctx, invoice_id, "changed")
    if inv["net_cents"] is None or inv["gross_cents"] is None or inv["vat_cents"] is None:
        raise ToolError(f"{invoice_id} is not captured yet (no amounts to post); capture it from its document first")
    decide(ctx, invoice_id, "approved", None, None, "")
    _post(ctx, inv)
    _update_po(ctx, inv)
    _mark_credited(ctx, inv)
    ctx.audit("approve_invoice", invoice_id, {})
    return f"Approved {invoice_id}."


@tool(writes=True)
def reject_invoice(ctx: V1Episode, invoice_id: str, reason_code: RejectCode, comment: Comment = "") -> str:
    """Reject a received invoice or credit note with a reason code. Nothing is posted; the supplier is told why.

    Args:
        invoice_id: The internal ID of a received invoice or credit note.
        reason_code: DUPLICATE, MISSING_PO, INVALID_PO, VAT_ERROR, INVOICE_INCOMPLETE, CREDIT_NO_ORIGINAL,
            CREDIT_ORIGINAL_REJECTED or CREDIT_EXCEEDS_ORIGINAL.
        comment: Optional free text for the supplier and the audit trail.
    """
    return reject(ctx, invoice_id, reason_code, comment, "changed")


@tool(writes=True)
def hold_invoice(ctx: V1Episode, invoice_id: str, reason_code: HoldCode, comment: Comment = "") -> str:
    """Put a received invoice or credit note on hold with a reason code (it stays open for someone to clear).

    Args:
        invoice_id: The internal ID of a received invoice or credit note.
        reason_code: SUPPLIER_BLOCKED, PO_EXCEEDED, QUANTITY_NOT_RECEIVED, PRICE_VARIANCE or CREDIT_ORIGINAL_OPEN.
        comment: Optional free text for the audit trail.
    """
    return hold(ctx, invoice_id, reason_code, comment, "changed")


@tool(writes=True)
def escalate_invoice(ctx: V1Episode, invoice_id: str, approver_id: str, comment: Comment = "") -> str:
    """Escalate a received invoice to another approver, who then decides it (sets assigned_to).

    Args:
        invoice_id: The internal ID of a received invoice.
        approver_id: The approver to escalate to, e.g. "AP-117" (not yourself).
        comment: Optional free text for the audit trail.
    """
    return escalate(ctx, invoice_id, approver_id, comment, "changed")


TOOLS: tuple[Tool, ...] = (
    list_invoices,
    get_invoice,
    get_document,
    capture_invoice,
    search_suppliers,
    get_supplier,
    get_purchase_order,
    list_goods_receipts,
    list_approvers,
    whoami,
    approve_invoice,
    reject_invoice,
    hold_invoice,
    escalate_invoice,
)
