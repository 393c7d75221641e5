"""The records of the company's books, as plain dataclasses before they go into SQLite, and the shapes of their IDs."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Final

ID_PATTERNS: Final = {
    "invoice_id": re.compile(r"ER-\d{4}-\d{5}"),
    "supplier_id": re.compile(r"K-\d{5}"),
    "po_number": re.compile(r"\b45\d{8}\b"),
    "approver_id": re.compile(r"AP-\d{3}"),
}
"""The IDs the tools show, by the argument name that takes them (the random policy and catalogue harvest them)."""


@dataclass
class Approver:
    approver_id: str
    name: str
    role: str
    limit_cents: int | None  # None: unlimited (CFO)


@dataclass
class Supplier:
    supplier_id: str
    creditor_no: str
    name: str
    street: str
    postal_code: str
    city: str
    country: str
    vat_id: str
    iban: str
    payment_terms: str
    category: str
    is_blocked: bool = False
    block_reason: str | None = None


@dataclass
class PurchaseOrder:
    po_number: str
    supplier_id: str
    order_date: dt.date
    cost_center: str
    description: str
    net_cents: int
    net_invoiced_cents: int = 0
    status: str = "open"


@dataclass
class Invoice:
    """One supplier invoice. ``trap``, ``intended`` and ``design_actor`` are hidden: they say what the
    generator planted and what deciding this invoice alone, acting as ``design_actor``, should give
    (``approve``, ``reject:CODE``, ``hold:CODE``, ``escalate:AP-...``). They never reach an episode."""

    supplier_id: str
    supplier_invoice_no: str
    invoice_date: dt.date
    received_date: dt.date
    po_number: str | None
    category: str
    expense_account: str
    net_cents: int
    vat_rate: int
    vat_cents: int
    gross_cents: int
    description: str
    status: str = "received"
    reason_code: str | None = None
    assigned_to: str | None = None
    trap: str = "clean"
    intended: str = "approve"
    design_actor: str = ""
    order_key: float = 0.0  # random tie-break among invoices received on the same day
    invoice_id: str = ""


@dataclass
class LedgerLine:
    invoice_id: str
    account: str
    debit_cents: int
    credit_cents: int
    text: str


@dataclass
class World:
    """A whole generated company: master data, open items and history."""

    seed: int
    approvers: list[Approver] = field(default_factory=list)
    suppliers: list[Supplier] = field(default_factory=list)
    purchase_orders: list[PurchaseOrder] = field(default_factory=list)
    invoices: list[Invoice] = field(default_factory=list)
    ledger: list[LedgerLine] = field(default_factory=list)
