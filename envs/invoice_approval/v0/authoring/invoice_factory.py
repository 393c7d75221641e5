"""Consistent construction of purchase orders and invoices for the world generator.

Every planted trap and every clean invoice is built through this factory, so the arithmetic (VAT half up,
gross = net + VAT, PO budgets that fit or overrun on purpose) and the bookkeeping of which PO budget is
already promised to which invoice live in one place.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Any

from ...shared.authoring.draws import business_days, clean_net, fresh_po_number
from ...shared.authoring.names import NameBook
from ...shared.entities import Approver, Invoice, PurchaseOrder, Supplier
from ...shared.money import gross_cents, required_rate, vat_cents
from ...shared.rules import KLEINBETRAG_LIMIT_CENTS, escalation_target

RECEIVED_FROM = dt.date(2026, 3, 2)
RECEIVED_TO = dt.date(2026, 3, 31)
HISTORY_FROM = dt.date(2026, 2, 2)
HISTORY_TO = dt.date(2026, 2, 27)


@dataclass
class InvoiceFactory:
    """Builds invoices and POs with a shared seeded RNG; tracks promised PO budget (``planned``)."""

    rng: random.Random
    suppliers: list[Supplier]
    approvers: list[Approver]
    config: dict[str, Any]
    names: NameBook
    invoices: list[Invoice] = field(default_factory=list)
    pos: list[PurchaseOrder] = field(default_factory=list)
    planned: dict[str, int] = field(default_factory=dict)
    shareable: set[str] = field(default_factory=set)
    _counters: dict[str, int] = field(default_factory=dict)
    _formats: dict[str, str] = field(default_factory=dict)
    _po_numbers: set[str] = field(default_factory=set)

    # -------------------------------------------------------------- dates
    def received_day(self, history: bool = False) -> dt.date:
        days = business_days(HISTORY_FROM, HISTORY_TO) if history else business_days(RECEIVED_FROM, RECEIVED_TO)
        return self.rng.choice(days)

    def ordered_days(self, count: int) -> list[dt.date]:
        """``count`` distinct received days, ascending: for invoices whose order is part of the trap."""
        return sorted(self.rng.sample(business_days(RECEIVED_FROM, RECEIVED_TO), count))

    # -------------------------------------------------------------- suppliers and amounts
    def supplier(
        self, *, blocked: bool = False, category: str | None = None, exclude: tuple[str, ...] = ()
    ) -> Supplier:
        pool = [
            s
            for s in self.suppliers
            if s.is_blocked == blocked and s.supplier_id not in exclude and (category is None or s.category == category)
        ]
        return self.rng.choice(pool)

    def net(self, category: str, lo_eur: float | None = None, hi_eur: float | None = None) -> int:
        """A net amount, log-uniform within the category's range (or the given one), in cents."""
        lo, hi = self.config["categories"][category]["net_eur"]
        lo_c, hi_c = int((lo_eur or lo) * 100), int((hi_eur or hi) * 100)
        value = lo_c * (hi_c / lo_c) ** self.rng.random()
        return max(1, int(value))

    def number(self, supplier: Supplier) -> str:
        """The supplier's next invoice number in its own house format."""
        if supplier.supplier_id not in self._formats:
            self._formats[supplier.supplier_id] = self.rng.choice(self.config["number_formats"])
            self._counters[supplier.supplier_id] = self.rng.randint(17, 900)
        self._counters[supplier.supplier_id] += self.rng.randint(1, 37)
        return self._formats[supplier.supplier_id].format(n=self._counters[supplier.supplier_id])

    # -------------------------------------------------------------- purchase orders
    def new_po_number(self) -> str:
        return fresh_po_number(self.rng, self._po_numbers)

    def po(
        self, supplier: Supplier, net_cents: int, *, status: str = "open", invoiced: int = 0, shareable: bool = False
    ) -> PurchaseOrder:
        order_date = dt.date(2025, 10, 1) + dt.timedelta(days=self.rng.randint(0, 140))
        po = PurchaseOrder(
            self.new_po_number(),
            supplier.supplier_id,
            order_date,
            self.rng.choice(self.config["cost_centers"]),
            self.names.text(self.rng, supplier.category, "po_descriptions"),
            net_cents,
            invoiced,
            status,
        )
        self.pos.append(po)
        self.planned[po.po_number] = invoiced
        if shareable:
            self.shareable.add(po.po_number)
        return po

    def po_with_room(self, supplier: Supplier, net: int, share: bool = True) -> PurchaseOrder:
        """An open PO of ``supplier`` with room for ``net`` within 100 % of its value (reused when one of
        the supplier's shareable POs has room, else new), and the room is promised to this invoice."""
        if share:
            for po in self.pos:
                if (
                    po.po_number in self.shareable
                    and po.supplier_id == supplier.supplier_id
                    and self.planned[po.po_number] + net <= po.net_cents
                    and self.rng.random() < 0.6
                ):
                    self.planned[po.po_number] += net
                    return po
        value = round(net * self.rng.uniform(1.05, 2.2) / 100) * 100
        invoiced = round(value * self.rng.choice([0, 0, 0.1, 0.25, 0.4]))
        invoiced = min(invoiced, value - net)
        po = self.po(supplier, value, invoiced=invoiced, shareable=share)
        self.planned[po.po_number] += net
        return po

    # -------------------------------------------------------------- invoices
    def invoice(
        self,
        supplier: Supplier,
        net: int,
        *,
        po: str | None,
        received: dt.date,
        trap: str = "clean",
        intended: str = "approve",
        actor: str | None = None,
        rate: int | None = None,
        vat: int | None = None,
        gross: int | None = None,
        number: str | None = None,
        category: str | None = None,
        status: str = "received",
    ) -> Invoice:
        """One invoice. VAT, rate and gross default to the correct values; traps override them."""
        category = category or supplier.category
        rate = required_rate(category) if rate is None else rate
        vat = vat_cents(net, rate) if vat is None else vat
        gross = net + vat if gross is None else gross
        invoice = Invoice(
            supplier_id=supplier.supplier_id,
            supplier_invoice_no=number or self.number(supplier),
            invoice_date=received - dt.timedelta(days=self.rng.randint(1, 12)),
            received_date=received,
            po_number=po,
            category=category,
            expense_account=self.config["categories"][category]["account"],
            net_cents=net,
            vat_rate=rate,
            vat_cents=vat,
            gross_cents=gross,
            description=self.names.text(self.rng, category, "invoice_lines"),
            status=status,
            trap=trap,
            intended=intended,
            design_actor=actor or self.sufficient_approver(gross),
            order_key=self.rng.random(),
        )
        self.invoices.append(invoice)
        return invoice

    def clean(
        self,
        supplier: Supplier | None = None,
        *,
        received: dt.date | None = None,
        net: int | None = None,
        allow_no_po: bool = True,
    ) -> Invoice:
        """A correct invoice that the policy approves when its acting approver's limit suffices."""
        supplier = supplier or self.supplier()
        net = net or self.clean_net(supplier.category)
        received = received or self.received_day()
        small = gross_cents(net, required_rate(supplier.category)) <= KLEINBETRAG_LIMIT_CENTS
        if allow_no_po and small and self.rng.random() < 0.5:
            return self.invoice(supplier, net, po=None, received=received)
        return self.invoice(supplier, net, po=self.po_with_room(supplier, net).po_number, received=received)

    def clean_net(self, category: str) -> int:
        """Mostly below the Teamleiter limit; some invoices need an Abteilungs- or Bereichsleiter."""
        return clean_net(self.rng, self.net, category)

    # -------------------------------------------------------------- approvers
    def sufficient_approver(self, gross: int) -> str:
        """The policy's escalation target for ``gross``: lowest sufficient limit, then smallest ID."""
        return escalation_target(((a.approver_id, a.limit_cents) for a in self.approvers), gross)

    def approvers_with_limit(self, limit_cents: int | None) -> list[Approver]:
        return sorted((a for a in self.approvers if a.limit_cents == limit_cents), key=lambda a: a.approver_id)
