"""The company generator: one integer seed in, one whole company out.

``generate_world(seed)`` uses ``random.Random(seed)`` and nothing else (no clock, no hash salt, no set
order), so a seed always gives the same company in any process. Seed 42 is the canonical company shipped in
``assets/invoice_approval/seed.sqlite``: 60 suppliers, 150 purchase orders, 200 invoices (182 received, 18
history), with the traps of ``traps.PLAN`` planted among the received invoices.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from functools import cache
from typing import Any

from ...core.assets import asset_path, read_json
from ..db import CANONICAL_SEED
from ..entities import Approver, Invoice, LedgerLine, Supplier, World
from ..ledger import ledger_lines
from ..numbers import normalize_invoice_number
from .identifiers import make_iban, make_vat_id
from .invoice_factory import InvoiceFactory
from .names import FOREIGN_CATEGORIES, NameBook
from .traps import plant_all

N_SUPPLIERS = 60
N_PURCHASE_ORDERS = 150
N_RECEIVED = 182
N_HISTORY_APPROVED = 13
N_HISTORY_REJECTED = 5
N_BLOCKED = 4
COUNTRY_MIX = (("AT", 6), ("NL", 6))  # the rest are German


@cache
def load_asset(name: str) -> Any:
    """A JSON file from ``assets/invoice_approval`` (cached: assets never change at run time)."""
    return read_json(asset_path("invoice_approval", name))


def generate_world(seed: int = CANONICAL_SEED) -> World:
    """Build the company for ``seed``. Raises if an internal invariant of the plan does not hold."""
    rng = random.Random(seed)
    config, names = load_asset("categories.json"), NameBook(load_asset("names.json"))
    world = World(seed=seed)
    world.approvers = make_approvers(rng, config, names)
    world.suppliers = make_suppliers(rng, config, names)
    factory = InvoiceFactory(rng, world.suppliers, world.approvers, config, names)
    plant_all(factory)
    add_history(factory)
    while sum(1 for i in factory.invoices if i.status == "received") < N_RECEIVED:
        factory.clean()
    add_filler_pos(factory)
    world.purchase_orders = sorted(factory.pos, key=lambda p: p.po_number)
    world.invoices = assign_invoice_ids(factory.invoices)
    world.ledger = book_history(world)
    check_world(world)
    return world


# ---------------------------------------------------------------------- master data
def make_approvers(rng: random.Random, config: dict[str, Any], names: NameBook) -> list[Approver]:
    """Several approvers per role, with random three-digit IDs so that ID order says nothing about role."""
    roles = [(r["role"], r["limit_eur"]) for r in config["approver_roles"] for _ in range(r["count"])]
    numbers = sorted(rng.sample(range(101, 400), len(roles)))
    rng.shuffle(roles)
    people: list[str] = []
    while len(people) < len(roles):
        person = names.person(rng)
        if person not in people:
            people.append(person)
    approvers = [
        Approver(f"AP-{n}", person, role, None if limit is None else limit * 100)
        for n, person, (role, limit) in zip(numbers, people, roles, strict=True)
    ]
    return sorted(approvers, key=lambda a: a.approver_id)


def make_suppliers(rng: random.Random, config: dict[str, Any], names: NameBook) -> list[Supplier]:
    """60 suppliers; a few Austrian and Dutch ones among the categories they sell; four are blocked."""
    categories = [c for c, spec in config["categories"].items() for _ in range(spec["suppliers"])]
    rng.shuffle(categories)
    foreign_slots = [i for i, c in enumerate(categories) if c in FOREIGN_CATEGORIES]
    countries = ["DE"] * len(categories)
    chosen = rng.sample(foreign_slots, sum(n for _, n in COUNTRY_MIX))
    for slot, country in zip(chosen, [c for c, n in COUNTRY_MIX for _ in range(n)], strict=True):
        countries[slot] = country
    creditors = sorted(rng.sample(range(70001, 79999), len(categories)))
    suppliers: list[Supplier] = []
    used: set[str] = set()
    for creditor, category, country in zip(creditors, categories, countries, strict=True):
        name = names.company(rng, category, country)
        while name in used:
            name = names.company(rng, category, country)
        used.add(name)
        street, postal, city = names.address(rng, country)
        suppliers.append(
            Supplier(
                supplier_id=f"K-{creditor}",
                creditor_no=str(creditor),
                name=name,
                street=street,
                postal_code=postal,
                city=city,
                country=country,
                vat_id=make_vat_id(rng, country),
                iban=make_iban(rng, country),
                payment_terms=rng.choice(config["payment_terms"]),
                category=category,
            )
        )
    for supplier, reason in zip(rng.sample(suppliers, N_BLOCKED), config["block_reasons"], strict=True):
        supplier.is_blocked, supplier.block_reason = True, reason
    return suppliers


# ---------------------------------------------------------------------- history and filler
def add_history(f: InvoiceFactory) -> None:
    """Last month's decided invoices, topped up to 13 approved and 5 rejected."""
    while sum(1 for i in f.invoices if i.status == "approved") < N_HISTORY_APPROVED:
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
    while sum(1 for i in f.invoices if i.status == "rejected") < N_HISTORY_REJECTED:
        s = f.supplier()
        invoice = f.invoice(
            s, f.net(s.category), po=None, received=f.received_day(history=True), status="rejected", trap="history"
        )
        invoice.reason_code = f.rng.choice(codes)
    for invoice in f.invoices:
        if invoice.status == "approved" and invoice.po_number:
            po = next(p for p in f.pos if p.po_number == invoice.po_number)
            po.net_invoiced_cents += invoice.net_cents


def add_filler_pos(f: InvoiceFactory) -> None:
    """POs without open invoices (some closed, some partly invoiced) up to the canonical count."""
    if len(f.pos) > N_PURCHASE_ORDERS:
        raise RuntimeError(f"the plan needs {len(f.pos)} POs, more than {N_PURCHASE_ORDERS}")
    while len(f.pos) < N_PURCHASE_ORDERS:
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
def check_world(world: World) -> None:
    """The canonical counts, PO references, and no duplicate number the plan did not put there."""
    received = [i for i in world.invoices if i.status == "received"]
    assert len(world.suppliers) == N_SUPPLIERS, len(world.suppliers)
    assert len(world.purchase_orders) == N_PURCHASE_ORDERS, len(world.purchase_orders)
    assert len(received) == N_RECEIVED and len(world.invoices) == N_RECEIVED + 18, len(world.invoices)
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
