"""The approval policy as code, and the reference solver that applies it through the tools.

``decide`` is the policy of ``assets/invoice_approval/policy.md`` as one pure function: rules 1-7 in order,
the first failing rule decides. ``solve`` is the reference solver: it learns everything it needs through
the same tools an agent has (so the tools provably expose enough), decides the work order's invoices in
processing order, and returns its full path, reads included. The gold path of every task is its output.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .money import required_rate, vat_cents, within_po_tolerance
from .numbers import normalize_invoice_number

KLEINBETRAG_LIMIT_CENTS = 25000
LIVE_STATUSES = ("received", "approved", "on_hold", "escalated")  # rejected invoices never count as originals
Action = dict[str, Any]
Caller = Callable[[Action], str]


@dataclass(frozen=True)
class Decision:
    """One decision: ``kind`` is approve/reject/hold/escalate; ``code`` is the reason code or approver ID."""

    invoice_id: str
    kind: str
    code: str | None = None

    @property
    def label(self) -> str:
        return self.kind if self.code is None else f"{self.kind}:{self.code}"

    def as_action(self) -> Action:
        args: dict[str, Any] = {"invoice_id": self.invoice_id}
        if self.kind in ("reject", "hold"):
            args["reason_code"] = self.code
        elif self.kind == "escalate":
            args["approver_id"] = self.code
        return {"name": f"{self.kind}_invoice", "arguments": args}


def escalation_target(approvers: Iterable[tuple[str, int | None]], gross_cents: int) -> str:
    """Rule 6's target: among (approver_id, limit) pairs whose limit covers the gross (None = unlimited),
    the lowest limit; ties go to the smallest approver ID."""
    qualified = [(1 << 62 if limit is None else limit, approver_id) for approver_id, limit in approvers
                 if limit is None or limit >= gross_cents]
    return min(qualified)[1]


def processing_key(invoice: dict[str, Any]) -> tuple[str, str]:
    """Processing order: received date, then internal invoice ID."""
    return (invoice["received_date"], invoice["invoice_id"])


def is_duplicate(invoice: dict[str, Any], same_supplier: Iterable[dict[str, Any]]) -> bool:
    """Rule 2: an earlier (processing order) invoice of the same supplier in a live status has the same
    normalised supplier invoice number."""
    key = normalize_invoice_number(invoice["supplier_invoice_no"])
    return any(other["invoice_id"] != invoice["invoice_id"] and other["status"] in LIVE_STATUSES
               and processing_key(other) < processing_key(invoice)
               and normalize_invoice_number(other["supplier_invoice_no"]) == key for other in same_supplier)


def po_problem(invoice: dict[str, Any], po: dict[str, Any] | None) -> Decision | None:
    """Rules 3 and 4. Above 250.00 gross a PO is required; a PO named on the invoice is always checked."""
    iid = invoice["invoice_id"]
    if invoice["po_number"] is None:
        return Decision(iid, "reject", "MISSING_PO") if invoice["gross_cents"] > KLEINBETRAG_LIMIT_CENTS else None
    if po is None or po["supplier_id"] != invoice["supplier_id"] or po["status"] != "open":
        return Decision(iid, "reject", "INVALID_PO")
    if not within_po_tolerance(po["net_cents"], po["net_invoiced_cents"], invoice["net_cents"]):
        return Decision(iid, "hold", "PO_EXCEEDED")
    return None


def vat_ok(invoice: dict[str, Any]) -> bool:
    """Rule 5: the category's rate, VAT = net x rate rounded half up to the cent, gross = net + VAT."""
    rate = required_rate(invoice["category"])
    return (invoice["vat_rate"] == rate and invoice["vat_cents"] == vat_cents(invoice["net_cents"], rate)
            and invoice["gross_cents"] == invoice["net_cents"] + invoice["vat_cents"])


def decide(invoice: dict[str, Any], supplier: dict[str, Any], po: dict[str, Any] | None,
           same_supplier: Iterable[dict[str, Any]], actor: dict[str, Any],
           approvers: Sequence[dict[str, Any]]) -> Decision:
    """Apply rules 1-7 in order; the first rule that fails decides."""
    iid = invoice["invoice_id"]
    if supplier["is_blocked"]:
        return Decision(iid, "hold", "SUPPLIER_BLOCKED")
    if is_duplicate(invoice, same_supplier):
        return Decision(iid, "reject", "DUPLICATE")
    problem = po_problem(invoice, po)
    if problem is not None:
        return problem
    if not vat_ok(invoice):
        return Decision(iid, "reject", "VAT_ERROR")
    limit = actor["limit_cents"]
    if limit is not None and invoice["gross_cents"] > limit:
        target = escalation_target(((a["approver_id"], a["limit_cents"]) for a in approvers), invoice["gross_cents"])
        return Decision(iid, "escalate", target)
    return Decision(iid, "approve")


# ---------------------------------------------------------------------------------------- the solver
@dataclass
class _Reader:
    """Calls tools, records every call as part of the path, and parses the JSON results."""

    call: Caller
    path: list[Action]

    def __call__(self, name: str, **arguments: Any) -> Any:
        action = {"name": name, "arguments": arguments}
        self.path.append(action)
        result = self.call(action)
        return None if result.startswith("Error:") else json.loads(result)


def solve(call: Caller, scope: Sequence[str], order: Literal["received", "listed"] = "received") -> list[Action]:
    """Decide the invoices of ``scope`` through ``call`` and return the full path (reads and decisions).

    ``order="listed"`` decides in the work order's listed order instead of processing order: that is a
    mistake the tasks are built to punish, and the task generator uses it as a wrong path.
    """
    path: list[Action] = []
    read = _Reader(call, path)
    actor = read("whoami")
    approvers = read("list_approvers")["approvers"]
    invoices = [read("get_invoice", invoice_id=iid) for iid in scope]
    if order == "received":
        invoices.sort(key=processing_key)
    suppliers: dict[str, Any] = {}
    known: dict[str, list[dict[str, Any]]] = {}
    for sid in dict.fromkeys(i["supplier_id"] for i in invoices):
        suppliers[sid] = read("get_supplier", supplier_id=sid)
        known[sid] = [row for status in LIVE_STATUSES
                      for row in read("list_invoices", status=status, supplier_id=sid, limit=200)["invoices"]]
    pos = {number: read("get_purchase_order", po_number=number)
           for number in dict.fromkeys(i["po_number"] for i in invoices if i["po_number"])}
    for invoice in invoices:
        decision = decide(invoice, suppliers[invoice["supplier_id"]], pos.get(invoice["po_number"] or ""),
                          known[invoice["supplier_id"]], actor, approvers)
        path.append(decision.as_action())
        call(decision.as_action())
        _remember(decision, invoice, known, pos)
    return path


def _remember(decision: Decision, invoice: dict[str, Any], known: dict[str, list[dict[str, Any]]],
              pos: dict[str, Any]) -> None:
    """Keep the solver's picture of the books current after its own decision."""
    new_status = {"approve": "approved", "reject": "rejected", "hold": "on_hold", "escalate": "escalated"}
    for row in known[invoice["supplier_id"]]:
        if row["invoice_id"] == invoice["invoice_id"]:
            row["status"] = new_status[decision.kind]
    po = pos.get(invoice["po_number"] or "")
    if decision.kind == "approve" and po is not None:
        po["net_invoiced_cents"] += invoice["net_cents"]
