"""What the tools of every InvoiceApproval version do alike: the supplier search, the approver list, and the
decisions that change an invoice's status (reject, hold, escalate) with their audit entry.

Each version keeps its own ``@tool`` functions: their docstrings and argument types (reason-code enums) are
what the model reads, and differ per version. The bodies call these.
"""

from __future__ import annotations

from typing import Any

from ...core import ToolError
from .episode import Books

SUPPLIER_BRIEF = "supplier_id, name, city, country, vat_id, is_blocked?"


def supplier_matches(ctx: Books, query: str) -> str:
    """At most 20 suppliers whose name, city, ID or VAT ID contains ``query`` (case-insensitive, LIKE's
    wildcards escaped), by supplier ID."""
    text = query.strip()
    if len(text) < 2:
        raise ToolError("search_suppliers: query must have at least 2 non-blank characters")
    pattern = "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    rows = ctx.json_rows(
        SUPPLIER_BRIEF,
        "FROM suppliers WHERE lower(name) LIKE ?1 ESCAPE '\\' "
        "OR lower(city) LIKE ?1 ESCAPE '\\' OR lower(supplier_id) LIKE ?1 ESCAPE '\\' "
        "OR lower(vat_id) LIKE ?1 ESCAPE '\\' ORDER BY supplier_id LIMIT 20",
        (pattern,),
    )
    return f'{{"matches": {rows}}}'


def approver_list(ctx: Books) -> str:
    rows = ctx.json_rows("approver_id, name, role, limit_cents", "FROM approvers ORDER BY name, approver_id", ())
    return f'{{"approvers": {rows}}}'


def received_invoice(ctx: Books, invoice_id: str, verb: str) -> dict[str, Any]:
    """The invoice, if it is still ``received``: every decision (and in v1 a capture) is a change out of
    ``received``. ``verb`` words the refusal ("decided" in v0, "changed" in v1, where captures count too)."""
    invoice = ctx.require("SELECT * FROM invoices WHERE invoice_id = ?", (invoice_id,), f"invoice '{invoice_id}'")
    if invoice["status"] != "received":
        raise ToolError(f"invoice '{invoice_id}' is already {invoice['status']}; only received invoices can be {verb}")
    return invoice


def decide(ctx: Books, invoice_id: str, status: str, reason: str | None, assigned: str | None, comment: str) -> None:
    ctx.conn.execute(
        "UPDATE invoices SET status = ?, reason_code = ?, assigned_to = ?, decision_comment = ? WHERE invoice_id = ?",
        (status, reason, assigned, comment or None, invoice_id),
    )


def reject(ctx: Books, invoice_id: str, reason_code: str, comment: str, verb: str) -> str:
    received_invoice(ctx, invoice_id, verb)
    decide(ctx, invoice_id, "rejected", reason_code, None, comment)
    ctx.audit("reject_invoice", invoice_id, {"reason_code": reason_code, "comment": comment})
    return f"Rejected {invoice_id} with reason {reason_code}."


def hold(ctx: Books, invoice_id: str, reason_code: str, comment: str, verb: str) -> str:
    received_invoice(ctx, invoice_id, verb)
    decide(ctx, invoice_id, "on_hold", reason_code, None, comment)
    ctx.audit("hold_invoice", invoice_id, {"reason_code": reason_code, "comment": comment})
    return f"Put {invoice_id} on hold with reason {reason_code}."


def escalate(ctx: Books, invoice_id: str, approver_id: str, comment: str, verb: str) -> str:
    """Escalation to another existing approver (never to oneself), who then decides the invoice."""
    received_invoice(ctx, invoice_id, verb)
    ctx.scalar("SELECT 1 FROM approvers WHERE approver_id = ?", (approver_id,), f"approver '{approver_id}'")
    if approver_id == ctx.actor["approver_id"]:
        raise ToolError("you cannot escalate an invoice to yourself; name another approver")
    decide(ctx, invoice_id, "escalated", None, approver_id, comment)
    ctx.audit("escalate_invoice", invoice_id, {"approver_id": approver_id, "comment": comment})
    return f"Escalated {invoice_id} to {approver_id}."
