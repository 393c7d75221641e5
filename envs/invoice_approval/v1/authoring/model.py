"""The records of a generated v1 company before they go into SQLite (offline only)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ...shared.entities import Approver, Supplier


@dataclass
class PoLine:
    line_no: int
    description: str
    quantity: int
    unit: str
    unit_price_cents: int
    invoiced_qty: int = 0


@dataclass
class PurchaseOrder:
    po_number: str
    supplier_id: str
    order_date: dt.date
    kind: str  # goods | services
    cost_center: str
    description: str
    lines: list[PoLine]
    net_invoiced_cents: int = 0
    status: str = "open"

    @property
    def net_cents(self) -> int:
        return sum(line.quantity * line.unit_price_cents for line in self.lines)


@dataclass
class GoodsReceipt:
    po_number: str
    line_no: int
    quantity: int
    receipt_date: dt.date
    receipt_id: str = ""


@dataclass
class DocLine:
    description: str
    quantity: int
    unit: str
    unit_price_cents: int
    po_line: int | None

    @property
    def net_cents(self) -> int:
        return self.quantity * self.unit_price_cents


@dataclass
class Capture:
    """What data entry typed into the books; ``None`` fields throughout mean not yet captured."""

    supplier_invoice_no: str | None
    invoice_date: dt.date | None
    po_number: str | None
    corrects_no: str | None
    net_cents: int | None
    vat_rate: int | None
    vat_cents: int | None
    gross_cents: int | None


@dataclass
class V1Invoice:
    """A received document: what it prints (``number`` .. ``buyer_vat_shown``) and what was captured
    (``capture``, equal to the print unless a trap says otherwise). Hidden: ``trap``, ``intended``,
    ``design_actor``."""

    supplier: Supplier
    kind: str
    received_date: dt.date
    category: str
    expense_account: str
    number: str
    invoice_date: dt.date
    po_number: str | None
    lines: list[DocLine]
    vat_rate: int
    vat_cents: int
    gross_cents: int
    notes: tuple[str, ...] = ()
    corrects_no: str | None = None
    seller_vat_shown: bool = True
    buyer_vat_shown: bool = False
    capture: Capture | None = None
    status: str = "received"
    reason_code: str | None = None
    assigned_to: str | None = None
    credited_cents: int = 0
    trap: str = "clean"
    intended: str = "approve"
    design_actor: str = ""
    group: int = 0
    capture_key: float = 0.0
    inbox: str = ""
    invoice_id: str = ""
    net_override: int | None = None  # a printed net that is not the sum of the lines (never used by traps yet)

    @property
    def net_cents(self) -> int:
        return self.net_override if self.net_override is not None else sum(x.net_cents for x in self.lines)

    def printed(self) -> Capture:
        return Capture(
            self.number,
            self.invoice_date,
            self.po_number,
            self.corrects_no,
            self.net_cents,
            self.vat_rate,
            self.vat_cents,
            self.gross_cents,
        )


@dataclass
class V1World:
    """A generated v1 company. Not v0's ``entities.World``: it adds the scale and goods receipts, its POs and
    invoices are v1's (lines, documents), and it has no ledger history."""

    seed: int
    scale: int
    approvers: list[Approver] = field(default_factory=list)
    suppliers: list[Supplier] = field(default_factory=list)
    purchase_orders: list[PurchaseOrder] = field(default_factory=list)
    receipts: list[GoodsReceipt] = field(default_factory=list)
    invoices: list[V1Invoice] = field(default_factory=list)
