"""The company generator: one integer seed in, one whole company out.

``generate_world(seed)`` uses ``random.Random(seed)`` and nothing else (no clock, no hash salt, no set
order), so a seed always gives the same company in any process. Seed 42 is the canonical company shipped in
``assets/invoice_approval/v0/seed.sqlite``: 60 suppliers, 150 purchase orders, 200 invoices (182 received, 18
history), with the traps of ``traps.PLAN`` planted among the received invoices.

``generate_world(seed, scale)`` multiplies suppliers, POs and invoices (received and history) by ``scale``
(1..100) and plants the whole trap plan ``scale`` times, so a bigger company keeps the same mix of traps per
invoice and invoices per supplier; the 14 approvers stay. Scale 1 draws exactly the same random numbers as
before scales existed, so every seed's default company (the shipped one among them) is unchanged.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from functools import cache
from typing import Any

from ....core.assets import asset_path, read_json
from ...shared.authoring.companies import load_asset as load_shared_asset
from ...shared.authoring.companies import make_approvers, make_suppliers
from ...shared.authoring.names import NameBook
from ...shared.db import CANONICAL_SEED
from ...shared.entities import Invoice, LedgerLine, World
from ...shared.numbers import normalize_invoice_number
from ..ledger import ledger_lines
from .invoice_factory import InvoiceFactory
from .traps import plant_all

N_SUPPLIERS = 60
N_PURCHASE_ORDERS = 150
N_RECEIVED = 182
N_HISTORY_APPROVED = 13
N_HISTORY_REJECTED = 5
N_HISTORY = N_HISTORY_APPROVED + N_HISTORY_REJECTED
MAX_SCALE = 100  # creditor numbers (70001-79998) hold 166 x 60 suppliers; 100 keeps invoice IDs at five digits


class UnbuildablePlan(RuntimeError):
    """A seed whose plan does not fit the company: its traps and history already need more purchase orders than
    the company holds (``add_filler_pos``). A property of the seed, like a batch the task builder refuses, so
    the bundle reports it as an unusable company (one the train seed search skips) rather than as a crash.
    A ``RuntimeError``, as before, so a caller that caught that still catches it."""


@cache
def load_asset(name: str) -> Any:
    """A JSON file of v0's own from ``assets/invoice_approval/v0`` (cached: assets never change at run time)."""
    return read_json(asset_path("invoice_approval", "v0", name))


def generate_world(seed: int = CANONICAL_SEED, scale: int = 1) -> World:
    """Build the company for ``seed`` at ``scale`` times the canonical size. Raises if an internal invariant of
    the plan does not hold."""
    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= MAX_SCALE:
        raise ValueError(f"scale must be a whole number from 1 to {MAX_SCALE}, got {scale!r}")
    rng = random.Random(seed)
    config, names = load_shared_asset("categories.json"), NameBook(load_shared_asset("names.json"))
    world = World(seed=seed)
    world.approvers = make_approvers(rng, config, names)
    world.suppliers = make_suppliers(rng, config, names, scale)
    factory = InvoiceFactory(rng, world.suppliers, world.approvers, config, names)
    for _ in range(scale):
        plant_all(factory)
    add_history(factory, scale)
    received = sum(1 for i in factory.invoices if i.status == "received")
    while received < N_RECEIVED * scale:  # a running count: recounting per clean invoice is quadratic at 100x
        factory.clean()
        received += 1
    add_filler_pos(factory, scale)
    world.purchase_orders = sorted(factory.pos, key=lambda p: p.po_number)
    world.invoices = assign_invoice_ids(factory.invoices)
    world.ledger = book_history(world)
    check_world(world, scale)
    return world


# ---------------------------------------------------------------------- master data
# ---------------------------------------------------------------------- history and filler
def add_history(f: InvoiceFactory, scale: int = 1) -> None:
    """Last month's decided invoices, topped up to 13 approved and 5 rejected per scale."""
    while sum(1 for i in f.invoices if i.status == "approved") < N_HISTORY_APPROVED * scale:
        s = f.supplier()
        net = f.net(s.category)
        f.invoice(
            s,
            net,
            po=f.po_with_room(s, net).po_number,
            received=f.received_day(history=True),
            status="approved",
            trap="history",
        )
    codes = ["VAT_ERROR", "MISSING_PO", "INVALID_PO", "DUPLICATE"]
    while sum(1 for i in f.invoices if i.status == "rejected") < N_HISTORY_REJECTED * scale:
        s = f.supplier()
        invoice = f.invoice(
            s, f.net(s.category), po=None, received=f.received_day(history=True), status="rejected", trap="history"
        )
        invoice.reason_code = f.rng.choice(codes)
    pos = {p.po_number: p for p in f.pos}  # a lookup, not a scan per invoice: 1,500 POs at 10x
    for invoice in f.invoices:
        if invoice.status == "approved" and invoice.po_number:
            pos[invoice.po_number].net_invoiced_cents += invoice.net_cents


def add_filler_pos(f: InvoiceFactory, scale: int = 1) -> None:
    """POs without open invoices (some closed, some partly invoiced) up to the canonical count per scale."""
    wanted = N_PURCHASE_ORDERS * scale
    if len(f.pos) > wanted:
        raise UnbuildablePlan(f"the plan needs {len(f.pos)} POs, more than {wanted}")
    while len(f.pos) < wanted:
        s = f.rng.choice(f.suppliers)
        value = f.rng.randint(5, 400) * 10000
        closed = f.rng.random() < 0.2
        invoiced = value if closed else round(value * f.rng.choice([0, 0, 0.2, 0.5]))
        f.po(s, value, invoiced=invoiced, status="closed" if closed else "open")


def assign_invoice_ids(invoices: list[Invoice]) -> list[Invoice]:
    """Internal IDs ER-2026-00001... in processing order: received date, then a seeded tie-break."""
    ordered = sorted(invoices, key=lambda i: (i.received_date, i.order_key))
    for number, invoice in enumerate(ordered, start=1):
        invoice.invoice_id = f"ER-2026-{number:05d}"
    return ordered


def book_history(world: World) -> list[LedgerLine]:
    lines: list[LedgerLine] = []
    for invoice in world.invoices:
        if invoice.status == "approved":
            lines.extend(
                ledger_lines(
                    invoice.invoice_id,
                    invoice.expense_account,
                    invoice.net_cents,
                    invoice.vat_rate,
                    invoice.vat_cents,
                    invoice.gross_cents,
                )
            )
    return lines


# ---------------------------------------------------------------------- invariants
def check_world(world: World, scale: int = 1) -> None:
    """The canonical counts (times ``scale``), PO references, and no duplicate number the plan did not put there."""
    received = [i for i in world.invoices if i.status == "received"]
    assert len(world.suppliers) == N_SUPPLIERS * scale, len(world.suppliers)
    assert len(world.purchase_orders) == N_PURCHASE_ORDERS * scale, len(world.purchase_orders)
    assert len(received) == N_RECEIVED * scale, len(received)
    assert len(world.invoices) == (N_RECEIVED + N_HISTORY) * scale, len(world.invoices)
    planted = {
        "exact_duplicate",
        "spelling_duplicate",
        "duplicate_with_flaw",
        "duplicate_of_approved",
        "corrected_resubmission",
        "rejected_history_resubmission",
    }
    groups: dict[tuple[str, str], list[Invoice]] = defaultdict(list)
    for invoice in world.invoices:
        groups[(invoice.supplier_id, normalize_invoice_number(invoice.supplier_invoice_no))].append(invoice)
    for (supplier, key), members in sorted(groups.items()):
        for later in members[1:]:
            if later.trap not in planted:
                raise RuntimeError(f"unplanned duplicate number {key} at {supplier}: {later.invoice_id}")
    assert all(i.invoice_date < i.received_date for i in world.invoices)
    assert dt.date(2026, 1, 1) < min(i.received_date for i in world.invoices)
