"""The approval policy as code, and the reference solver that applies it through the tools.

``decide`` is the policy of ``assets/invoice_approval/v0/policy.md`` as one pure function: rules 1-7 in order,
the first failing rule decides. ``solve`` is the reference solver: it learns everything it needs through
the same tools an agent has (so the tools provably expose enough), decides the work order's invoices in
processing order, and returns its full path, reads included. The gold path of every task is its output.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ...core.actions import Action
from ..shared.money import required_rate, vat_cents, within_po_tolerance
from ..shared.numbers import normalize_invoice_number
from ..shared.rules import KLEINBETRAG_LIMIT_CENTS, Caller, Ruling, Steps, drive, escalation_target

LIVE_STATUSES = ("received", "approved", "on_hold", "escalated")  # rejected invoices never count as originals


def processing_key(invoice: dict[str, Any]) -> tuple[str, str]:
    """Processing order: received date, then internal invoice ID."""
    return (invoice["received_date"], invoice["invoice_id"])


def is_duplicate(invoice: dict[str, Any], same_supplier: Iterable[dict[str, Any]]) -> bool:
    """Rule 2: an earlier (processing order) invoice of the same supplier in a live status has the same
    normalised supplier invoice number."""
    key = normalize_invoice_number(invoice["supplier_invoice_no"])
    return any(
        other["invoice_id"] != invoice["invoice_id"]
        and other["status"] in LIVE_STATUSES
        and processing_key(other) < processing_key(invoice)
        and normalize_invoice_number(other["supplier_invoice_no"]) == key
        for other in same_supplier
    )


def po_problem(invoice: dict[str, Any], po: dict[str, Any] | None) -> Ruling | None:
    """Rules 3 and 4. Above 250.00 gross a PO is required; a PO named on the invoice is always checked."""
    iid = invoice["invoice_id"]
    if invoice["po_number"] is None:
        return Ruling(iid, "reject", "MISSING_PO") if invoice["gross_cents"] > KLEINBETRAG_LIMIT_CENTS else None
    if po is None or po["supplier_id"] != invoice["supplier_id"] or po["status"] != "open":
        return Ruling(iid, "reject", "INVALID_PO")
    if not within_po_tolerance(po["net_cents"], po["net_invoiced_cents"], invoice["net_cents"]):
        return Ruling(iid, "hold", "PO_EXCEEDED")
    return None


def vat_ok(invoice: dict[str, Any]) -> bool:
    """Rule 5: the category's rate, VAT = net x rate rounded half up to the cent, gross = net + VAT."""
    rate = required_rate(invoice["category"])
    return bool(
        invoice["vat_rate"] == rate
        and invoice["vat_cents"] == vat_cents(invoice["net_cents"], rate)
        and invoice["gross_cents"] == invoice["net_cents"] + invoice["vat_cents"]
    )


def decide(
    invoice: dict[str, Any],
    supplier: dict[str, Any],
    po: dict[str, Any] | None,
    same_supplier: Iterable[dict[str, Any]],
    actor: dict[str, Any],
    approvers: Sequence[dict[str, Any]],
    vat_check: Callable[[dict[str, Any]], bool] | None = None,
) -> Ruling:
    """Apply rules 1-7 in order; the first rule that fails decides. ``vat_check`` replaces rule 5's check (the
    shortcut benchmark measures agents that check less); the policy's own is ``vat_ok``."""
    iid = invoice["invoice_id"]
    if supplier["is_blocked"]:
        return Ruling(iid, "hold", "SUPPLIER_BLOCKED")
    if is_duplicate(invoice, same_supplier):
        return Ruling(iid, "reject", "DUPLICATE")
    problem = po_problem(invoice, po)
    if problem is not None:
        return problem
    if not (vat_check or vat_ok)(invoice):
        return Ruling(iid, "reject", "VAT_ERROR")
    limit = actor["limit_cents"]
    if limit is not None and invoice["gross_cents"] > limit:
        target = escalation_target(((a["approver_id"], a["limit_cents"]) for a in approvers), invoice["gross_cents"])
        return Ruling(iid, "escalate", target)
    return Ruling(iid, "approve")


# ---------------------------------------------------------------------------------------- the solver
def read_json(name: str, **arguments: Any) -> Generator[Action, str, Any]:
    """Yield one read call, receive its observation, return the parsed JSON (None for an ``Error:``)."""
    result = yield {"name": name, "arguments": arguments}
    return None if result.startswith("Error:") else json.loads(result)


@dataclass
class Picture:
    """What the solver has learned of the books through the agent's own tools, kept current after its own
    decisions: the acting approver, the approvers, the work order's invoices (in the order it decides them), their
    suppliers, each supplier's invoices in a live status, and their POs."""

    actor: dict[str, Any]
    approvers: list[dict[str, Any]]
    invoices: list[dict[str, Any]]
    suppliers: dict[str, Any]
    known: dict[str, list[dict[str, Any]]]
    pos: dict[str, Any]

    def ruling(self, invoice: dict[str, Any], vat_check: Callable[[dict[str, Any]], bool] | None = None) -> Ruling:
        """The policy's ruling on one of the work order's invoices, from what has been read."""
        sid = invoice["supplier_id"]
        po = self.pos.get(invoice["po_number"] or "")
        return decide(invoice, self.suppliers[sid], po, self.known[sid], self.actor, self.approvers, vat_check)

    def remember(self, ruling: Ruling, invoice: dict[str, Any]) -> None:
        """Keep the picture current after a decision: the invoice's new status, and an approval on its PO."""
        new_status = {"approve": "approved", "reject": "rejected", "hold": "on_hold", "escalate": "escalated"}
        for row in self.known[invoice["supplier_id"]]:
            if row["invoice_id"] == invoice["invoice_id"]:
                row["status"] = new_status[ruling.kind]
        po = self.pos.get(invoice["po_number"] or "")
        if ruling.kind == "approve" and po is not None:
            po["net_invoiced_cents"] += invoice["net_cents"]


def read_books(
    scope: Sequence[str], order: Literal["received", "listed"] = "received"
) -> Generator[Action, str, Picture]:
    """Read everything the policy needs about the work order's invoices, as a coroutine of tool calls; the
    invoices come back in processing order (``order="received"``) or in the listed order."""
    actor = yield from read_json("whoami")
    approvers = (yield from read_json("list_approvers"))["approvers"]
    invoices = []
    for iid in scope:
        invoices.append((yield from read_json("get_invoice", invoice_id=iid)))
    if order == "received":
        invoices.sort(key=processing_key)
    suppliers: dict[str, Any] = {}
    known: dict[str, list[dict[str, Any]]] = {}
    for sid in dict.fromkeys(i["supplier_id"] for i in invoices):
        suppliers[sid] = yield from read_json("get_supplier", supplier_id=sid)
        known[sid] = []
        for status in LIVE_STATUSES:
            known[sid] += (yield from read_json("list_invoices", status=status, supplier_id=sid, limit=200))["invoices"]
    pos: dict[str, Any] = {}
    for number in dict.fromkeys(i["po_number"] for i in invoices if i["po_number"]):
        pos[number] = yield from read_json("get_purchase_order", po_number=number)
    return Picture(actor, approvers, invoices, suppliers, known, pos)


def solver_steps(scope: Sequence[str], order: Literal["received", "listed"] = "received") -> Steps:
    """The reference solver as a coroutine: it yields each tool call and is sent back the observation.

    It learns everything through the agent's own tools, then decides the work order's invoices in
    processing order. ``order="listed"`` decides them in the listed order instead: a mistake the long and
    hard tasks are built to punish, which the task generator uses as a wrong path.
    """
    picture = yield from read_books(scope, order)
    for invoice in picture.invoices:
        ruling = picture.ruling(invoice)
        yield ruling.as_action()
        picture.remember(ruling, invoice)


def solve(call: Caller, scope: Sequence[str], order: Literal["received", "listed"] = "received") -> list[Action]:
    """Run the solver against ``call`` (action -> observation) and return its full path."""
    return drive(solver_steps(scope, order), call)
