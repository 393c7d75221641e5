"""Consistent construction of v1 purchase orders, goods receipts and documents (offline).

Every clean document and every trap is built here, so the arithmetic (line nets, VAT half up, the tax
treatment's printed form) and the bookkeeping of PO lines and receipts live in one place. One seeded RNG.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Any

from ...shared.authoring.draws import business_days, clean_net, fresh_po_number
from ...shared.authoring.names import NameBook
from ...shared.entities import Approver, Supplier
from ...shared.money import required_rate, vat_cents
from ...shared.rules import escalation_target
from ..company import NOTE_PHRASES, is_service, treatment
from .model import DocLine, GoodsReceipt, PoLine, PurchaseOrder, V1Invoice

RECEIVED_FROM, RECEIVED_TO = dt.date(2026, 3, 2), dt.date(2026, 3, 31)
HISTORY_FROM, HISTORY_TO = dt.date(2026, 2, 2), dt.date(2026, 2, 27)


@dataclass
class Factory:
    rng: random.Random
    suppliers: list[Supplier]
    approvers: list[Approver]
    config: dict[str, Any]
    extra: dict[str, Any]
    names: NameBook
    invoices: list[V1Invoice] = field(default_factory=list)
    pos: list[PurchaseOrder] = field(default_factory=list)
    receipts: list[GoodsReceipt] = field(default_factory=list)
    groups: int = 0
    _counters: dict[str, int] = field(default_factory=dict)
    _formats: dict[str, str] = field(default_factory=dict)
    _po_numbers: set[str] = field(default_factory=set)

    # ------------------------------------------------------------------ dates, suppliers, amounts
    def day(self, history: bool = False) -> dt.date:
        span = (HISTORY_FROM, HISTORY_TO) if history else (RECEIVED_FROM, RECEIVED_TO)
        return self.rng.choice(business_days(*span))

    def days(self, count: int) -> list[dt.date]:
        return sorted(self.rng.sample(business_days(RECEIVED_FROM, RECEIVED_TO), count))

    def supplier(
        self, *, blocked: bool = False, where: str = "any", service: bool | None = None, exclude: tuple[str, ...] = ()
    ) -> Supplier:
        pool = [
            s
            for s in self.suppliers
            if s.is_blocked == blocked
            and s.supplier_id not in exclude
            and (where == "any" or (where == "DE") == (s.country == "DE"))
            and (service is None or is_service(s.category) == service)
        ]
        return self.rng.choice(pool)

    def net(self, category: str, lo: float | None = None, hi: float | None = None) -> int:
        low, high = self.config["categories"][category]["net_eur"]
        lo_c, hi_c = int((lo or low) * 100), int((hi or high) * 100)
        return max(100, int(lo_c * (hi_c / lo_c) ** self.rng.random()))

    def number(self, supplier: Supplier, credit: bool = False) -> str:
        key = supplier.supplier_id + ("/GS" if credit else "")
        if key not in self._formats:
            formats = self.extra["credit_number_formats"] if credit else self.config["number_formats"]
            self._formats[key] = self.rng.choice(formats)
            self._counters[key] = self.rng.randint(17, 900)
        self._counters[key] += self.rng.randint(1, 37)
        return self._formats[key].format(n=self._counters[key])

    def unit(self, category: str) -> str:
        return str(self.rng.choice(self.extra["units"][category]))

    def text(self, category: str) -> str:
        return self.names.text(self.rng, category, "invoice_lines")

    def split(self, category: str, net: int, exact: bool = False) -> list[tuple[int, int]]:
        """(quantity, unit price) pairs near ``net`` (exactly ``net`` with ``exact``: one line, quantity 1)."""
        if exact:
            return [(1, net)]
        count = self.rng.choice([1, 1, 2, 3])
        pairs = []
        for share in range(count):
            part = net // count
            qty = self.rng.randint(1, 40)
            price = max(50, (part // qty) // 50 * 50)
            pairs.append((qty, price))
            del share
        return pairs

    # ------------------------------------------------------------------ purchase orders and receipts
    def new_po_number(self) -> str:
        return fresh_po_number(self.rng, self._po_numbers)

    def po(
        self, supplier: Supplier, lines: list[tuple[int, int]], *, status: str = "open", category: str | None = None
    ) -> PurchaseOrder:
        category = category or supplier.category
        order = PurchaseOrder(
            self.new_po_number(),
            supplier.supplier_id,
            dt.date(2025, 10, 1) + dt.timedelta(days=self.rng.randint(0, 140)),
            "services" if is_service(category) else "goods",
            self.rng.choice(self.config["cost_centers"]),
            self.names.text(self.rng, category, "po_descriptions"),
            [PoLine(n, self.text(category), q, self.unit(category), p) for n, (q, p) in enumerate(lines, start=1)],
            status=status,
        )
        self.pos.append(order)
        return order

    def receive(self, po: PurchaseOrder, line_no: int, qty: int, before: dt.date) -> None:
        """Book ``qty`` received on a PO line, in one or two deliveries before ``before``."""
        if qty <= 0:
            return
        parts = [qty] if qty < 2 or self.rng.random() < 0.6 else [qty // 2, qty - qty // 2]
        for part in parts:
            date = before - dt.timedelta(days=self.rng.randint(1, 20))
            self.receipts.append(GoodsReceipt(po.po_number, line_no, part, date))

    def po_for(
        self, supplier: Supplier, pairs: list[tuple[int, int]], received: dt.date, *, prior: bool = True
    ) -> tuple[PurchaseOrder, list[int]]:
        """A PO whose lines cover ``pairs`` (plus room), goods received for them; returns the PO and the PO
        line of each pair. Some lines were already partly invoiced (and received) before."""
        lines, prior_qty = [], []
        for qty, price in pairs:
            already = self.rng.choice([0, 0, 0, self.rng.randint(1, 10)]) if prior else 0
            lines.append((already + qty + self.rng.choice([0, 0, self.rng.randint(1, 10)]), price))
            prior_qty.append(already)
        po = self.po(supplier, lines)
        for line, (qty, price), already in zip(po.lines, pairs, prior_qty, strict=True):
            line.invoiced_qty = already
            po.net_invoiced_cents += already * price
            if po.kind == "goods":
                self.receive(po, line.line_no, already + qty, received)
        return po, [line.line_no for line in po.lines]

    # ------------------------------------------------------------------ documents
    def invoice(
        self,
        supplier: Supplier,
        pairs: list[tuple[int, int]],
        *,
        po: PurchaseOrder | None,
        po_lines: list[int] | None = None,
        received: dt.date,
        trap: str = "clean",
        intended: str = "approve",
        actor: str | None = None,
        kind: str = "invoice",
        corrects_no: str | None = None,
        status: str = "received",
        number: str | None = None,
    ) -> V1Invoice:
        """A correct document in the treatment the supplier's country and category give; traps edit it after."""
        category = supplier.category
        treat = treatment(supplier.country, category)
        desc = self.extra["credit_texts"][self.rng.randrange(4)] if kind == "credit_note" else None
        refs: list[int | None] = list(po_lines) if po_lines else [None] * len(pairs)
        lines = [
            DocLine(desc or self.text(category), q, self.unit(category), p, refs[i]) for i, (q, p) in enumerate(pairs)
        ]
        net = sum(x.net_cents for x in lines)
        rate = required_rate(category) if treat == "domestic" else 0
        vat = vat_cents(net, rate)
        notes = () if treat == "domestic" else (self.rng.choice(NOTE_PHRASES[treat]),)
        invoice = V1Invoice(
            supplier=supplier,
            kind=kind,
            received_date=received,
            category=category,
            expense_account=self.config["categories"][category]["account"],
            number=number or self.number(supplier, credit=kind == "credit_note"),
            invoice_date=received - dt.timedelta(days=self.rng.randint(1, 12)),
            po_number=po.po_number if po else None,
            lines=lines,
            vat_rate=rate,
            vat_cents=vat,
            gross_cents=net + vat,
            notes=notes,
            corrects_no=corrects_no,
            buyer_vat_shown=treat != "domestic" or self.rng.random() < 0.3,
            status=status,
            trap=trap,
            intended=intended,
            design_actor=actor or self.sufficient_approver(net + vat),
            group=self.groups,
            capture_key=received.toordinal() + self.rng.uniform(0.0, 6.0),
        )
        self.invoices.append(invoice)
        return invoice

    def reprice(
        self, invoice: V1Invoice, rate: int | None = None, vat: int | None = None, gross: int | None = None
    ) -> None:
        """Print other tax figures on a document (a trap); the gross follows unless given."""
        invoice.vat_rate = invoice.vat_rate if rate is None else rate
        invoice.vat_cents = vat_cents(invoice.net_cents, invoice.vat_rate) if vat is None else vat
        invoice.gross_cents = invoice.net_cents + invoice.vat_cents if gross is None else gross

    def clean(
        self,
        supplier: Supplier | None = None,
        *,
        received: dt.date | None = None,
        net: int | None = None,
        po: bool | None = None,
    ) -> V1Invoice:
        """A correct document that the policy approves when the acting approver's limit suffices."""
        supplier = supplier or self.supplier()
        received = received or self.day()
        net = net or self.clean_net(supplier.category)
        pairs = self.split(supplier.category, net)
        total = sum(q * p for q, p in pairs)
        small = total * 119 // 100 <= 25000
        if po is False or (po is None and small and self.rng.random() < 0.5):
            return self.invoice(supplier, pairs, po=None, received=received)
        order, lines = self.po_for(supplier, pairs, received)
        return self.invoice(supplier, pairs, po=order, po_lines=lines, received=received)

    def clean_net(self, category: str) -> int:
        return clean_net(self.rng, self.net, category)

    def new_group(self) -> None:
        self.groups += 1

    # ------------------------------------------------------------------ approvers
    def sufficient_approver(self, gross: int) -> str:
        return escalation_target(((a.approver_id, a.limit_cents) for a in self.approvers), gross)

    def approvers_with_limit(self, limit_cents: int | None) -> list[Approver]:
        return sorted((a for a in self.approvers if a.limit_cents == limit_cents), key=lambda a: a.approver_id)
