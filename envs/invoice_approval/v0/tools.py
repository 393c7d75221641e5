"""The 11 tools of the accounts-payable clerk. Each docstring is the description the model reads.

The tools apply no policy: they let the agent make any wrong decision. They refuse only invalid input
(unknown IDs, reason codes outside the enum, limits out of range) and invalid status transitions (a decision
only from ``received``). Every refusal is an ``Error: ...`` observation and changes nothing; every write is
audited with the acting approver. All SQL is parameterized.
"""

from __future__ import annotations

from typing import Annotated, Literal

from ...core import MaxLen, Range, Tool, ToolError, tool
from ..shared.episode import to_json
from ..shared.tool_steps import approver_list, decide, escalate, hold, received_invoice, reject, supplier_matches
from .episode import InvoiceEpisode
from .ledger import ledger_lines
from .read_model import INVOICE, PURCHASE_ORDER, SUPPLIER
from .status_counts import status_count

Status = Literal["received", "approved", "rejected", "on_hold", "escalated"]
RejectCode = Literal["DUPLICATE", "MISSING_PO", "INVALID_PO", "VAT_ERROR"]
HoldCode = Literal["SUPPLIER_BLOCKED", "PO_EXCEEDED"]
Comment = Annotated[str, MaxLen(1000)]

_SUMMARY = (
    "invoice_id, supplier_id, supplier_invoice_no, invoice_date, received_date, po_number, "
    "gross_cents, status, reason_code, assigned_to"
)


@tool()
def list_invoices(
    ctx: InvoiceEpisode, status: Status, supplier_id: str = "", limit: Annotated[int, Range(1, 200)] = 50
) -> str:
    """List invoices in one status, oldest first (received date, then invoice ID).

    Use it to see what is waiting (status "received") or to look for earlier invoices of a supplier, for
    example when checking for duplicates. Amounts are integer euro cents (12345 = 123.45 EUR).

    Args:
        status: Only invoices in this status.
        supplier_id: Only invoices of this supplier (e.g. "K-70123"); empty for all suppliers.
        limit: At most this many invoices (1-200). "total" in the result says how many match.
    """
    where, params = "status = ?", [str(status)]
    if supplier_id:
        ctx.require("SELECT 1 FROM suppliers WHERE supplier_id = ?", (supplier_id,), f"supplier '{supplier_id}'")
        where += " AND supplier_id = ?"
        params.append(supplier_id)
    if supplier_id:
        total = ctx.conn.execute(f"SELECT COUNT(*) FROM invoices WHERE {where}", params).fetchone()[0]
    else:
        total = status_count(ctx.conn, str(status))  # kept by triggers: counting grows with the company
    rows = ctx.json_rows(
        _SUMMARY, f"FROM invoices WHERE {where} ORDER BY received_date, invoice_id LIMIT ?", (*params, limit)
    )
    return f'{{"total": {total}, "returned": {min(total, limit)}, "invoices": {rows}}}'


@tool()
def get_invoice(ctx: InvoiceEpisode, invoice_id: str) -> str:
    """Get one invoice with all its fields: supplier, the supplier's own invoice number, dates, PO number
    (null if none was given), category, expense account, net/VAT/gross in euro cents, VAT rate in percent,
    status, reason code and the approver it is assigned to.

    Args:
        invoice_id: The internal invoice ID, e.g. "ER-2026-00042".
    """
    return ctx.record(INVOICE, invoice_id, "invoice")


@tool()
def search_suppliers(ctx: InvoiceEpisode, query: Annotated[str, MaxLen(100)]) -> str:
    """Find suppliers by part of their name, city, supplier ID or VAT ID (case-insensitive). Returns at most
    20 matches, ordered by supplier ID.

    Args:
        query: Text to look for, at least 2 characters, e.g. "Werkzeug", "Augsburg", "K-701", "DE1234".
    """
    return supplier_matches(ctx, query)


@tool()
def get_supplier(ctx: InvoiceEpisode, supplier_id: str) -> str:
    """Get a supplier's master data: name, address, VAT ID, IBAN, payment terms, and whether the supplier is
    blocked for payment (is_blocked, with the block reason).

    Args:
        supplier_id: The supplier ID, e.g. "K-70123".
    """
    return ctx.record(SUPPLIER, supplier_id, "supplier")


@tool()
def get_purchase_order(ctx: InvoiceEpisode, po_number: str) -> str:
    """Get a purchase order: its supplier, order date, cost center, net value, the net amount already
    invoiced against it (net_invoiced_cents), and its status (open or closed). Amounts in euro cents.

    Args:
        po_number: The PO number, e.g. "4500123456".
    """
    return ctx.record(PURCHASE_ORDER, po_number, "purchase order")


@tool()
def list_approvers(ctx: InvoiceEpisode) -> str:
    """List every approver with role and approval limit (gross, euro cents; null means unlimited), ordered
    by name."""
    return approver_list(ctx)


@tool()
def whoami(ctx: InvoiceEpisode) -> str:
    """Who you are acting as in this session: approver ID, name, role and approval limit (gross, euro
    cents; null means unlimited)."""
    return to_json(ctx.actor)


@tool(writes=True)
def approve_invoice(ctx: InvoiceEpisode, invoice_id: str) -> str:
    """Approve a received invoice for payment. This posts it to the ledger (debit the expense account with the
    net, debit input VAT 1576 at 19 % or 1571 at 7 % with the VAT, credit 1600 payables with the gross) and
    adds its net to the purchase order's invoiced amount. It cannot be undone. Like any ledger, it refuses to
    post a document whose debits (net + VAT) do not equal its credit (gross).

    Args:
        invoice_id: The internal invoice ID of a received invoice, e.g. "ER-2026-00042".
    """
    inv = received_invoice(ctx, invoice_id, "decided")
    if inv["net_cents"] + inv["vat_cents"] != inv["gross_cents"]:
        raise ToolError(
            f"cannot post {invoice_id}: debits (net {inv['net_cents']} + VAT {inv['vat_cents']} cents) "
            f"do not equal the credit (gross {inv['gross_cents']} cents); the entry would not balance"
        )
    decide(ctx, invoice_id, "approved", None, None, "")
    for line in ledger_lines(
        invoice_id, inv["expense_account"], inv["net_cents"], inv["vat_rate"], inv["vat_cents"], inv["gross_cents"]
    ):
        ctx.conn.execute(
            "INSERT INTO ledger (invoice_id, account, debit_cents, credit_cents, text) VALUES (?, ?, ?, ?, ?)",
            (line.invoice_id, line.account, line.debit_cents, line.credit_cents, line.text),
        )
    message = f"Approved {invoice_id}: 3 ledger lines posted (gross {inv['gross_cents']} cents)."
    if (
        inv["po_number"]
        and ctx.conn.execute(
            "UPDATE purchase_orders SET net_invoiced_cents = net_invoiced_cents + ? WHERE po_number = ?",
            (inv["net_cents"], inv["po_number"]),
        ).rowcount
    ):
        message += f" PO {inv['po_number']} invoiced amount increased by {inv['net_cents']} cents."
    ctx.audit("approve_invoice", invoice_id, {})
    return message


@tool(writes=True)
def reject_invoice(ctx: InvoiceEpisode, invoice_id: str, reason_code: RejectCode, comment: Comment = "") -> str:
    """Reject a received invoice with a reason code. Nothing is posted; the supplier is told why.

    Args:
        invoice_id: The internal invoice ID of a received invoice.
        reason_code: DUPLICATE, MISSING_PO, INVALID_PO or VAT_ERROR.
        comment: Optional free text for the supplier and the audit trail.
    """
    return reject(ctx, invoice_id, reason_code, comment, "decided")


@tool(writes=True)
def hold_invoice(ctx: InvoiceEpisode, invoice_id: str, reason_code: HoldCode, comment: Comment = "") -> str:
    """Put a received invoice on hold with a reason code (it stays open for someone to clear the block).

    Args:
        invoice_id: The internal invoice ID of a received invoice.
        reason_code: SUPPLIER_BLOCKED or PO_EXCEEDED.
        comment: Optional free text for the audit trail.
    """
    return hold(ctx, invoice_id, reason_code, comment, "decided")


@tool(writes=True)
def escalate_invoice(ctx: InvoiceEpisode, invoice_id: str, approver_id: str, comment: Comment = "") -> str:
    """Escalate a received invoice to another approver, who then decides it (sets assigned_to).

    Args:
        invoice_id: The internal invoice ID of a received invoice.
        approver_id: The approver to escalate to, e.g. "AP-117" (not yourself).
        comment: Optional free text for the audit trail.
    """
    return escalate(ctx, invoice_id, approver_id, comment, "decided")


TOOLS: tuple[Tool, ...] = (
    list_invoices,
    get_invoice,
    search_suppliers,
    get_supplier,
    get_purchase_order,
    list_approvers,
    whoami,
    approve_invoice,
    reject_invoice,
    hold_invoice,
    escalate_invoice,
)
