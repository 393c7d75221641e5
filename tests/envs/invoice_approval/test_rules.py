"""The policy as code: every planted trap decided alone, the boundaries, money and number rules."""

from __future__ import annotations

from typing import Any

import pytest

from officegym.envs.invoice_approval.shared.money import fmt_eur, gross_cents, net_for_gross, vat_cents
from officegym.envs.invoice_approval.shared.numbers import normalize_invoice_number
from officegym.envs.invoice_approval.shared.rules import escalation_target
from officegym.envs.invoice_approval.v0.authoring.traps import INDEXED_PLAN, PLAN
from officegym.envs.invoice_approval.v0.rules import decide, solve
from officegym.envs.invoice_approval.v0.sandbox import call, open_episode

TRAP_KINDS = sorted({p.__name__ for p, _ in PLAN} | {p.__name__ for p, _ in INDEXED_PLAN})


def _alone(bundle: Any, invoice: Any) -> str:
    episode = open_episode(bundle.template, invoice.design_actor)
    path = solve(lambda a: call(episode, a).observation, [invoice.invoice_id])
    last = path[-1]
    code = last["arguments"].get("reason_code") or last["arguments"].get("approver_id")
    kind = str(last["name"]).removesuffix("_invoice")
    return str(kind if code is None else f"{kind}:{code}")


@pytest.mark.parametrize("kind", TRAP_KINDS)
def test_each_trap_kind_is_decided_as_planted(kind: str, world: Any, bundle: Any) -> None:
    planted = [i for i in world.invoices if i.status == "received" and i.trap == kind]
    if kind == "resubmission":
        planted = [i for i in world.invoices if i.trap in ("resubmission_original", "corrected_resubmission")]
    if kind == "near_duplicate":
        planted += [i for i in world.invoices if i.trap == "near_duplicate_original"]
    assert planted, f"no invoice planted for {kind}"
    for invoice in planted:
        assert _alone(bundle, invoice) == invoice.intended, (invoice.invoice_id, kind)


def test_every_received_invoice_matches_its_intended_outcome(world: Any, bundle: Any) -> None:
    wrong = [
        (i.invoice_id, i.trap, i.intended, got)
        for i in world.invoices
        if i.status == "received" and (got := _alone(bundle, i)) != i.intended
    ]
    assert wrong == []


# ---------------------------------------------------------------------------- boundaries, on synthetic rows
APPROVERS: list[dict[str, Any]] = [
    {"approver_id": "AP-300", "limit_cents": 500000},
    {"approver_id": "AP-120", "limit_cents": 2500000},
    {"approver_id": "AP-110", "limit_cents": 2500000},
    {"approver_id": "AP-105", "limit_cents": None},
]
ACTOR = {"approver_id": "AP-300", "limit_cents": 500000}
SUPPLIER = {"supplier_id": "K-1", "is_blocked": False}


def _invoice(
    net: int,
    *,
    po: str | None = "4500000001",
    category: str = "goods",
    rate: int = 19,
    vat: int | None = None,
    gross: int | None = None,
) -> dict[str, Any]:
    vat = vat_cents(net, rate) if vat is None else vat
    return {
        "invoice_id": "ER-2026-00100",
        "supplier_id": "K-1",
        "supplier_invoice_no": "A-1",
        "received_date": "2026-03-10",
        "po_number": po,
        "category": category,
        "net_cents": net,
        "vat_rate": rate,
        "vat_cents": vat,
        "gross_cents": net + vat if gross is None else gross,
    }


def _po(net: int, invoiced: int = 0, status: str = "open", supplier: str = "K-1") -> dict[str, Any]:
    return {
        "po_number": "4500000001",
        "supplier_id": supplier,
        "net_cents": net,
        "net_invoiced_cents": invoiced,
        "status": status,
    }


def _label(invoice: dict[str, Any], po: dict[str, Any] | None = None, actor: dict[str, Any] = ACTOR) -> str:
    return str(decide(invoice, SUPPLIER, po, [], actor, APPROVERS).label)


def test_kleinbetrag_boundary_250_00_vs_250_01() -> None:
    at_limit, above = net_for_gross(25000, 19), net_for_gross(25001, 19)
    assert at_limit is not None and above is not None
    assert _label(_invoice(at_limit, po=None)) == "approve"
    assert _label(_invoice(above, po=None)) == "reject:MISSING_PO"


def test_small_invoice_with_a_bad_po_is_checked_in_full() -> None:
    assert _label(_invoice(10000), _po(50000, status="closed")) == "reject:INVALID_PO"
    assert _label(_invoice(10000), _po(50000, supplier="K-2")) == "reject:INVALID_PO"
    assert _label(_invoice(10000), None) == "reject:INVALID_PO"
    assert _label(_invoice(10000), _po(10000, invoiced=10000)) == "hold:PO_EXCEEDED"


def test_po_budget_exactly_102_percent_vs_one_cent_over() -> None:
    assert _label(_invoice(102000 - 40000), _po(100000, invoiced=40000)) == "approve"
    assert _label(_invoice(102000 - 40000 + 1), _po(100000, invoiced=40000)) == "hold:PO_EXCEEDED"


def test_approval_limit_exactly_vs_one_cent_over_and_tie_break() -> None:
    net_at, net_over = net_for_gross(500000, 19), net_for_gross(500001, 19)
    assert net_at is not None and net_over is not None
    assert _label(_invoice(net_at), _po(10**7)) == "approve"
    assert _label(_invoice(net_over), _po(10**7)) == "escalate:AP-110"  # lowest sufficient limit, smallest ID
    assert escalation_target([("AP-9", None), ("AP-2", 100), ("AP-1", 100)], 100) == "AP-1"
    assert escalation_target([("AP-9", None), ("AP-2", 100)], 101) == "AP-9"
    cfo = {"approver_id": "AP-105", "limit_cents": None}
    assert _label(_invoice(9_000_000), _po(10**8), actor=cfo) == "approve"


def test_half_cent_vat_rounds_half_up() -> None:
    assert vat_cents(550, 19) == 105 and vat_cents(1150, 19) == 219
    assert vat_cents(10005, 7) == 700 and vat_cents(123456, 19) == 23457
    assert gross_cents(123456, 19) == 146913
    assert round(5.50 * 0.19, 2) == 1.04  # why floats are never used for money
    assert _label(_invoice(550, po=None)) == "approve"
    assert _label(_invoice(550, po=None, vat=104)) == "reject:VAT_ERROR"


def test_vat_rules() -> None:
    assert _label(_invoice(10000, po=None, category="books", rate=7)) == "approve"
    assert _label(_invoice(10000, po=None, category="books", rate=19)) == "reject:VAT_ERROR"
    assert _label(_invoice(10000, po=None, category="goods", rate=7)) == "reject:VAT_ERROR"
    assert _label(_invoice(10000, po=None, gross=11901)) == "reject:VAT_ERROR"
    assert _label(_invoice(10000, po=None, vat=1901)) == "reject:VAT_ERROR"


def test_rule_order_first_failure_decides() -> None:
    blocked = {"supplier_id": "K-1", "is_blocked": True}
    bad = _invoice(100000, po=None, vat=1)
    assert decide(bad, blocked, None, [], ACTOR, APPROVERS).label == "hold:SUPPLIER_BLOCKED"
    earlier = {**bad, "invoice_id": "ER-2026-00001", "received_date": "2026-03-01", "status": "received"}
    assert decide(bad, SUPPLIER, None, [earlier], ACTOR, APPROVERS).label == "reject:DUPLICATE"
    assert (
        decide(bad, SUPPLIER, None, [{**earlier, "status": "rejected"}], ACTOR, APPROVERS).label == "reject:MISSING_PO"
    )
    later = {**earlier, "invoice_id": "ER-2026-00200", "received_date": "2026-03-20"}
    assert decide(bad, SUPPLIER, None, [later], ACTOR, APPROVERS).label == "reject:MISSING_PO"


@pytest.mark.parametrize(
    "number, key",
    [
        ("RE-2026-0042", "RE20260042"),
        ("re 2026/42", "RE202642"),
        ("000042", "42"),
        ("R-0042", "R42"),
        ("r 42", "R42"),
        ("AR 00017", "AR17"),
        ("2026/0476", "20260476"),
        ("INV-26-0007", "INV260007"),
        ("0", "0"),
        ("ab-00", "AB0"),
        ("Ü-12", "12"),
    ],
)
def test_invoice_number_normalisation(number: str, key: str) -> None:
    assert normalize_invoice_number(number) == key


def test_money_formatting_and_net_search() -> None:
    assert fmt_eur(1234567) == "12.345,67 EUR" and fmt_eur(-5) == "-0,05 EUR"
    for gross in (25000, 25001, 500000, 500001, 2500000, 10000000):
        net = net_for_gross(gross, 19)
        assert net is not None and gross_cents(net, 19) == gross
