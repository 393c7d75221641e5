"""The v1 company generator: one seed (and a scale) in, one whole company out (offline).

``random.Random(seed)`` only: no clock, no string hashing, no set order. ``scale`` (1-100) multiplies
suppliers, POs, receipts and documents; the trap plan is planted ``scale`` times with counts drawn per company.
Internal IDs follow capture, not arrival: each document gets a capture key a few days after it was received
(chains get theirs against arrival on purpose), and IDs are numbered in capture-key order.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from ....core.assets import asset_path, read_json
from ...shared.authoring.companies import load_asset, make_approvers, make_suppliers
from ...shared.authoring.names import NameBook
from ..company import treatment
from ..db import CANONICAL_SEED
from ..posting import invoice_lines, mirrored
from .factory import Factory
from .model import V1World
from .traps import plant_all

RECEIVED_PER_SCALE = 240
HISTORY_PER_SCALE = 20
FILLER_POS_PER_SCALE = 40
MAX_SCALE = 100


@cache
def load_v1_asset(name: str) -> Any:
    return read_json(asset_path("invoice_approval", "v1", name))


def generate_world(seed: int = CANONICAL_SEED, scale: int = 1) -> V1World:
    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= MAX_SCALE:
        raise ValueError(f"scale must be a whole number from 1 to {MAX_SCALE}, got {scale!r}")
    rng = random.Random(seed * 7919 + 1)
    config, names = load_asset("categories.json"), NameBook(load_asset("names.json"))
    extra = load_v1_asset("additions.json")
    world = V1World(seed, scale)
    world.approvers = make_approvers(rng, config, names)
    world.suppliers = make_suppliers(rng, config, names, scale)
    f = Factory(rng, world.suppliers, world.approvers, config, extra, names)
    for _ in range(scale):
        plant_all(f)
    _history(f, scale)
    while sum(1 for i in f.invoices if i.status == "received") < RECEIVED_PER_SCALE * scale:
        f.new_group()
        f.clean()
    _filler_pos(f, scale)
    _inboxes(f, scale, extra["inboxes"])
    _number(f)
    _book_history(f)
    world.purchase_orders = sorted(f.pos, key=lambda p: p.po_number)
    world.receipts = f.receipts
    world.invoices = sorted(f.invoices, key=lambda i: i.invoice_id)
    return world


def _history(f: Factory, scale: int) -> None:
    """Last month's decided documents: approved (posted) and rejected ones, topped up per scale."""
    while sum(1 for i in f.invoices if i.status == "approved") < HISTORY_PER_SCALE * scale:
        f.new_group()
        f.clean(received=f.day(history=True), po=True).status = "approved"
    for _ in range(5 * scale):
        f.new_group()
        inv = f.clean(received=f.day(history=True), po=False)
        inv.status, inv.reason_code = "rejected", f.rng.choice(["VAT_ERROR", "MISSING_PO", "DUPLICATE"])


def _filler_pos(f: Factory, scale: int) -> None:
    for _ in range(FILLER_POS_PER_SCALE * scale):
        s = f.rng.choice(f.suppliers)
        po = f.po(
            s,
            [(f.rng.randint(1, 20), f.rng.randint(10, 2000) * 50)],
            status="closed" if f.rng.random() < 0.3 else "open",
        )
        if po.status == "closed":
            po.lines[0].invoiced_qty = po.lines[0].quantity
            po.net_invoiced_cents = po.net_cents


def _inboxes(f: Factory, scale: int, per_scale: int) -> None:
    """Documents planted together share an inbox; the rest are spread at random."""
    names = [f"PE-{101 + k}" for k in range(per_scale * scale)]
    by_group: dict[int, str] = {}
    for inv in f.invoices:
        if inv.group not in by_group:
            by_group[inv.group] = f.rng.choice(names)
        inv.inbox = by_group[inv.group]


def _number(f: Factory) -> None:
    """IDs in capture order (capture key, then a seeded tie-break); receipts in date order."""
    keyed = sorted(f.invoices, key=lambda i: (i.capture_key, f.rng.random()))
    for n, inv in enumerate(keyed, start=1):
        inv.invoice_id = f"ER-2026-{n:05d}"
    f.receipts.sort(key=lambda r: (r.receipt_date, r.po_number, r.line_no))
    for n, receipt in enumerate(f.receipts, start=1):
        receipt.receipt_id = f"WE-{n:06d}"


def _book_history(f: Factory) -> None:
    """Approved history lands on its PO (net and line quantities) and in the ledger (see ``history_ledger``)."""
    pos = {p.po_number: p for p in f.pos}
    for inv in f.invoices:
        if inv.status != "approved" or inv.po_number not in pos:
            continue
        sign = -1 if inv.kind == "credit_note" else 1
        po = pos[inv.po_number]
        po.net_invoiced_cents += sign * inv.net_cents
        for line in inv.lines:
            if line.po_line is not None:
                po.lines[line.po_line - 1].invoiced_qty += sign * line.quantity


def history_ledger(world: V1World) -> list[tuple[str, str, int, int, str]]:
    rows = []
    for inv in world.invoices:
        if inv.status != "approved":
            continue
        lines = invoice_lines(
            treatment(inv.supplier.country, inv.category),
            inv.category,
            inv.expense_account,
            inv.net_cents,
            inv.vat_cents,
            inv.gross_cents,
        )
        for x in mirrored(lines) if inv.kind == "credit_note" else lines:
            rows.append((inv.invoice_id, x.account, x.debit_cents, x.credit_cents, x.text))
    return rows
