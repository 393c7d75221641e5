"""The generated company: canonical counts, valid identifiers, determinism, the shipped fingerprint."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from typing import Any

from officegym.envs.invoice_approval.shared.authoring.identifiers import is_valid_iban, is_valid_vat_id
from officegym.envs.invoice_approval.shared.db import connect_bytes
from officegym.envs.invoice_approval.shared.money import required_rate, vat_cents
from officegym.envs.invoice_approval.v0.authoring.seed_db import build_seed_db
from officegym.envs.invoice_approval.v0.authoring.world import generate_world
from officegym.envs.invoice_approval.v0.db import HIDDEN_COLUMNS, fingerprint, shipped_fingerprint, shipped_seed_bytes


def test_canonical_counts(world: Any) -> None:
    statuses = Counter(i.status for i in world.invoices)
    assert len(world.suppliers) == 60
    assert len(world.purchase_orders) == 150
    assert len(world.invoices) == 200
    assert statuses["received"] == 182
    assert statuses["approved"] + statuses["rejected"] == 18
    assert sum(s.is_blocked for s in world.suppliers) == 4
    assert {s.country for s in world.suppliers} == {"DE", "AT", "NL"}
    roles = Counter(a.role for a in world.approvers)
    assert roles == {"Teamleiter": 5, "Abteilungsleiter": 4, "Bereichsleiter": 3, "CFO": 2}


def test_every_generated_iban_and_vat_id_is_valid(world: Any) -> None:
    for supplier in world.suppliers:
        assert is_valid_iban(supplier.iban), supplier
        assert is_valid_vat_id(supplier.vat_id), supplier
        if supplier.country == "DE":
            assert len(supplier.iban) == 22 and supplier.vat_id.startswith("DE")


def test_ids_are_unique_and_well_formed(world: Any) -> None:
    ids = [i.invoice_id for i in world.invoices]
    assert len(set(ids)) == 200 and ids == sorted(ids) and ids[0] == "ER-2026-00001"
    assert len({s.supplier_id for s in world.suppliers}) == 60
    assert len({p.po_number for p in world.purchase_orders}) == 150
    assert all(p.po_number.startswith("45") and len(p.po_number) == 10 for p in world.purchase_orders)


def test_history_is_booked(world: Any) -> None:
    approved = [i for i in world.invoices if i.status == "approved"]
    assert len(world.ledger) == 3 * len(approved)
    for invoice in approved:
        lines = [line for line in world.ledger if line.invoice_id == invoice.invoice_id]
        assert sum(line.debit_cents for line in lines) == sum(line.credit_cents for line in lines)


def test_clean_invoices_have_correct_vat(world: Any) -> None:
    for invoice in world.invoices:
        if invoice.trap == "clean":
            rate = required_rate(invoice.category)
            assert invoice.vat_rate == rate
            assert invoice.vat_cents == vat_cents(invoice.net_cents, rate)
            assert invoice.gross_cents == invoice.net_cents + invoice.vat_cents


def test_generation_is_deterministic_and_seed_dependent(world: Any) -> None:
    again = generate_world(42)
    assert fingerprint(build_seed_db(again)) == fingerprint(build_seed_db(world))
    other = generate_world(7)
    assert fingerprint(build_seed_db(other)) != fingerprint(build_seed_db(world))
    assert len(other.invoices) == 200


def test_regenerated_seed_matches_the_shipped_fingerprint(world: Any) -> None:
    assert fingerprint(build_seed_db(world)) == shipped_fingerprint()
    assert fingerprint(connect_bytes(shipped_seed_bytes())) == shipped_fingerprint()


def test_fingerprint_is_the_same_in_a_fresh_process() -> None:
    code = (
        "from officegym.envs.invoice_approval.v0.authoring.world import generate_world;"
        "from officegym.envs.invoice_approval.v0.authoring.seed_db import build_seed_db;"
        "from officegym.envs.invoice_approval.v0.db import fingerprint;"
        "print(fingerprint(build_seed_db(generate_world(42))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    )
    assert out.stdout.strip() == shipped_fingerprint()


def test_shipped_assets_regenerate_identically() -> None:
    from officegym.envs.invoice_approval.v0.authoring.generate import main

    assert main(["--check"]) == 0


def test_seed_has_hidden_columns_and_the_episode_template_does_not(bundle: Any) -> None:
    seed_columns = {r[1] for r in connect_bytes(shipped_seed_bytes()).execute("PRAGMA table_info(invoices)")}
    assert set(HIDDEN_COLUMNS) <= seed_columns
    episode = connect_bytes(bundle.template)
    columns = {r[1] for r in episode.execute("PRAGMA table_info(invoices)")}
    assert not set(HIDDEN_COLUMNS) & columns
    for marker in (b"design_actor", b"duplicate_of_approved", b"vat_half_cent_wrong", b"reject:DUPLICATE"):
        assert marker not in bundle.template
