"""The planted traps: received invoices built so that exactly one rule of the policy decides them.

Each planter adds one trap instance through the :class:`InvoiceFactory` and records, in hidden columns,
what kind of trap it is and what deciding it alone should give. ``PLAN`` says how many of each are planted
into the canonical company; the tests check every planted invoice against the reference solver.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...shared.entities import Invoice, Supplier
from ...shared.money import gross_cents, net_for_gross, required_rate, vat_cents
from ...shared.numbers import normalize_invoice_number, spelling_variant
from ...shared.rules import KLEINBETRAG_LIMIT_CENTS
from .invoice_factory import InvoiceFactory


def _hold(code: str) -> str:
    return f"hold:{code}"


def _reject(code: str) -> str:
    return f"reject:{code}"


def _valid_po(f: InvoiceFactory, s: Supplier, net: int) -> str:
    return f.po_with_room(s, net, share=False).po_number


def _big_net(f: InvoiceFactory, category: str) -> int:
    """A net whose gross is clearly above the Kleinbetrag limit and below the Teamleiter limit."""
    return f.net(category, max(400.0, f.config["categories"][category]["net_eur"][0]), 3800)


# ------------------------------------------------------------------ rule 1: blocked supplier
def blocked_supplier(f: InvoiceFactory) -> None:
    s = f.supplier(blocked=True)
    net = _big_net(f, s.category)
    f.invoice(
        s,
        net,
        po=_valid_po(f, s, net),
        received=f.received_day(),
        trap="blocked_supplier",
        intended=_hold("SUPPLIER_BLOCKED"),
    )


def blocked_with_flaw(f: InvoiceFactory) -> None:
    """Blocked and a VAT error: the first failing rule (1) decides, so it is a hold, not a reject."""
    s = f.supplier(blocked=True)
    net = _big_net(f, s.category)
    f.invoice(
        s,
        net,
        po=_valid_po(f, s, net),
        received=f.received_day(),
        trap="blocked_with_flaw",
        vat=vat_cents(net, required_rate(s.category)) + 1,
        intended=_hold("SUPPLIER_BLOCKED"),
    )


# ------------------------------------------------------------------ rule 2: duplicates
def _supplier_of(f: InvoiceFactory, invoice: Invoice) -> Supplier:
    return next(s for s in f.suppliers if s.supplier_id == invoice.supplier_id)


def _duplicate(f: InvoiceFactory, trap: str, respell: bool, *, drop_po: bool = False) -> None:
    first, later = f.ordered_days(2)
    original = f.clean(f.supplier(), received=first, allow_no_po=False)
    original.trap = "duplicate_original"
    number = spelling_variant(original.supplier_invoice_no, f.rng) if respell else original.supplier_invoice_no
    f.invoice(
        _supplier_of(f, original),
        original.net_cents,
        po=None if drop_po else original.po_number,
        received=later,
        number=number,
        trap=trap,
        category=original.category,
        intended=_reject("DUPLICATE"),
    )


def exact_duplicate(f: InvoiceFactory) -> None:
    _duplicate(f, "exact_duplicate", respell=False)


def spelling_duplicate(f: InvoiceFactory) -> None:
    _duplicate(f, "spelling_duplicate", respell=True)


def duplicate_with_flaw(f: InvoiceFactory) -> None:
    """A resent copy without the PO number: rule 2 comes before rule 3, so DUPLICATE, not MISSING_PO."""
    _duplicate(f, "duplicate_with_flaw", respell=True, drop_po=True)


def duplicate_of_approved(f: InvoiceFactory) -> None:
    """The same invoice was approved last month (history); the resent copy is a duplicate."""
    s = f.supplier()
    net = _big_net(f, s.category)
    po = f.po_with_room(s, net, share=False)
    old = f.invoice(
        s,
        net,
        po=po.po_number,
        received=f.received_day(history=True),
        status="approved",
        trap="history_approved_original",
    )
    f.invoice(
        s,
        net,
        po=po.po_number,
        received=f.received_day(),
        trap="duplicate_of_approved",
        number=spelling_variant(old.supplier_invoice_no, f.rng) if f.rng.random() < 0.5 else old.supplier_invoice_no,
        intended=_reject("DUPLICATE"),
    )


def resubmission(f: InvoiceFactory) -> None:
    """A wrong invoice and, days later, its corrected resubmission under the same number. Decided alone the
    resubmission is a duplicate (the original is still received); once the original is rejected it is not."""
    s = f.supplier()
    net = _big_net(f, s.category)
    po = _valid_po(f, s, net)
    rate = required_rate(s.category)
    day1, day2 = f.ordered_days(2)
    first = f.invoice(
        s,
        net,
        po=po,
        received=day1,
        vat=vat_cents(net, rate) + f.rng.choice([-100, 100]),
        trap="resubmission_original",
        intended=_reject("VAT_ERROR"),
    )
    f.invoice(
        s,
        net,
        po=po,
        received=day2,
        number=spelling_variant(first.supplier_invoice_no, f.rng),
        trap="corrected_resubmission",
        intended=_reject("DUPLICATE"),
    )


def rejected_history_resubmission(f: InvoiceFactory) -> None:
    """Rejected last month for a missing PO, now resent with one: rejected invoices never count."""
    s = f.supplier()
    net = _big_net(f, s.category)
    old = f.invoice(
        s, net, po=None, received=f.received_day(history=True), status="rejected", trap="history_rejected_original"
    )
    old.reason_code = "MISSING_PO"
    f.invoice(
        s,
        net,
        po=_valid_po(f, s, net),
        received=f.received_day(),
        number=old.supplier_invoice_no,
        trap="rejected_history_resubmission",
    )


def near_duplicate(f: InvoiceFactory) -> None:
    """Two numbers that look alike but differ under the exact normalisation (a zero inside a digit run)."""
    for _ in range(40):
        day1, day2 = f.ordered_days(2)
        original = f.clean(f.supplier(), received=day1, allow_no_po=False)
        other = _drop_inner_zero(original.supplier_invoice_no)
        if other:
            s = _supplier_of(f, original)
            net = _big_net(f, s.category)
            f.invoice(s, net, po=_valid_po(f, s, net), received=day2, number=other, trap="near_duplicate")
            original.trap = "near_duplicate_original"
            return
    raise RuntimeError("no near-duplicate number format found")


def _drop_inner_zero(number: str) -> str | None:
    """Delete a '0' that is not leading in its merged digit run, so the normalised key changes."""
    for match in re.finditer("0", number):
        candidate = number[: match.start()] + number[match.end() :]
        if normalize_invoice_number(candidate) != normalize_invoice_number(number):
            return candidate
    return None


# ------------------------------------------------------------------ rule 3: purchase orders
def _supplier_reaching(f: InvoiceFactory, gross: int) -> tuple[Supplier, int]:
    """A supplier whose VAT rate can produce exactly ``gross`` (not every gross is reachable)."""
    for _ in range(100):
        s = f.supplier()
        net = net_for_gross(gross, required_rate(s.category))
        if net is not None:
            return s, net
    raise ValueError(f"no supplier reaches gross {gross}")


def missing_po(f: InvoiceFactory) -> None:
    s = f.supplier()
    f.invoice(
        s,
        _big_net(f, s.category),
        po=None,
        received=f.received_day(),
        trap="missing_po",
        intended=_reject("MISSING_PO"),
    )


def missing_po_boundary(f: InvoiceFactory) -> None:
    """250.01 gross without a PO: one cent above the Kleinbetrag limit."""
    s, net = _supplier_reaching(f, KLEINBETRAG_LIMIT_CENTS + 1)
    f.invoice(s, net, po=None, received=f.received_day(), trap="missing_po_boundary", intended=_reject("MISSING_PO"))


def kleinbetrag_no_po(f: InvoiceFactory) -> None:
    s = f.supplier()
    net = f.net(s.category, 20, 190)
    f.invoice(s, net, po=None, received=f.received_day(), trap="kleinbetrag_no_po")


def kleinbetrag_exact(f: InvoiceFactory) -> None:
    """Exactly 250.00 gross without a PO: inside the limit (250.00 yes, 250.01 no)."""
    s, net = _supplier_reaching(f, KLEINBETRAG_LIMIT_CENTS)
    f.invoice(s, net, po=None, received=f.received_day(), trap="kleinbetrag_exact")


def po_other_supplier(f: InvoiceFactory) -> None:
    s = f.supplier()
    other = f.supplier(exclude=(s.supplier_id,))
    net = _big_net(f, s.category)
    foreign = f.po(other, round(net * 1.5 / 100) * 100)
    f.invoice(
        s,
        net,
        po=foreign.po_number,
        received=f.received_day(),
        trap="po_other_supplier",
        intended=_reject("INVALID_PO"),
    )


def po_closed(f: InvoiceFactory) -> None:
    s = f.supplier()
    net = _big_net(f, s.category)
    closed = f.po(s, round(net * 1.3 / 100) * 100, status="closed")
    f.invoice(s, net, po=closed.po_number, received=f.received_day(), trap="po_closed", intended=_reject("INVALID_PO"))


def po_unknown(f: InvoiceFactory) -> None:
    s = f.supplier()
    f.invoice(
        s,
        _big_net(f, s.category),
        po=f.new_po_number(),
        received=f.received_day(),
        trap="po_unknown",
        intended=_reject("INVALID_PO"),
    )


def kleinbetrag_bad_po(f: InvoiceFactory) -> None:
    """Under 250 gross no PO is needed, but a named PO is checked in full: a closed one fails."""
    s = f.supplier()
    net = f.net(s.category, 20, 190)
    closed = f.po(s, round(net * 2 / 100) * 100 + 10000, status="closed")
    f.invoice(
        s,
        net,
        po=closed.po_number,
        received=f.received_day(),
        trap="kleinbetrag_bad_po",
        intended=_reject("INVALID_PO"),
    )


def kleinbetrag_po_exceeded(f: InvoiceFactory) -> None:
    """Under 250 gross with a named PO that it overruns: rule 4 applies to a named PO too."""
    s = f.supplier()
    net = f.net(s.category, 60, 190)
    value = 20000
    f.po(s, value, invoiced=value)
    po = f.pos[-1]
    f.invoice(
        s,
        net,
        po=po.po_number,
        received=f.received_day(),
        trap="kleinbetrag_po_exceeded",
        intended=_hold("PO_EXCEEDED"),
    )


# ------------------------------------------------------------------ rule 4: PO budget
def _budget_po(f: InvoiceFactory, s: Supplier, net_eur: tuple[float, float]) -> tuple[int, int]:
    value = f.rng.randint(int(net_eur[0]), int(net_eur[1])) * 100
    invoiced = round(value * f.rng.choice([0.3, 0.5, 0.7, 0.85]))
    return value, invoiced


def po_budget_exact(f: InvoiceFactory) -> None:
    """Invoiced so far + this net = exactly 102 % of the PO: allowed."""
    s = f.supplier()
    value, invoiced = _budget_po(f, s, (2000, 9000))
    po = f.po(s, value, invoiced=invoiced)
    net = value * 102 // 100 - invoiced
    f.planned[po.po_number] += net
    f.invoice(s, net, po=po.po_number, received=f.received_day(), trap="po_budget_exact")


def po_budget_over(f: InvoiceFactory) -> None:
    """One cent above 102 % of the PO: hold."""
    s = f.supplier()
    value, invoiced = _budget_po(f, s, (2000, 9000))
    po = f.po(s, value, invoiced=invoiced)
    net = value * 102 // 100 - invoiced + 1
    f.invoice(s, net, po=po.po_number, received=f.received_day(), trap="po_budget_over", intended=_hold("PO_EXCEEDED"))


def budget_chain(f: InvoiceFactory) -> None:
    """Three invoices on one PO; each fits alone, the first two together overrun, the third (small) fits
    after the first. In received order the second is held; in another order a different one is."""
    s = f.supplier()
    value = f.rng.randint(30, 70) * 100 * 100
    invoiced = round(value * 0.2)
    po = f.po(s, value, invoiced=invoiced)
    room = value - invoiced
    days = f.ordered_days(3)
    for day, share in zip(days, ((0.55, 0.7), (0.5, 0.6), (0.12, 0.2)), strict=True):
        f.invoice(s, round(room * f.rng.uniform(*share)), po=po.po_number, received=day, trap="budget_chain")
    f.planned[po.po_number] = value  # fully spoken for: no clean invoice may join this PO


# ------------------------------------------------------------------ rule 5: VAT
def _vat_trap(
    f: InvoiceFactory,
    trap: str,
    *,
    category: str | None = None,
    rate: int | None = None,
    vat_delta: int = 0,
    gross_delta: int = 0,
    net: int | None = None,
    ok: bool = False,
) -> None:
    s = f.supplier(category=category) if category else f.supplier()
    net = net or _big_net(f, s.category)
    rate = required_rate(s.category) if rate is None else rate
    vat = vat_cents(net, rate) + vat_delta
    po = _valid_po(f, s, net) if net + vat > KLEINBETRAG_LIMIT_CENTS or f.rng.random() < 0.5 else None
    f.invoice(
        s,
        net,
        po=po,
        received=f.received_day(),
        rate=rate,
        vat=vat,
        gross=net + vat + gross_delta,
        trap=trap,
        intended="approve" if ok else _reject("VAT_ERROR"),
    )


def vat_wrong_rate(f: InvoiceFactory) -> None:
    """Industrial goods billed at 7 % (internally consistent, but the rate is wrong)."""
    _vat_trap(f, "vat_wrong_rate", category="goods", rate=7)


def vat_books_at_19(f: InvoiceFactory) -> None:
    _vat_trap(f, "vat_books_at_19", category="books", rate=19)


def vat_reduced_ok(f: InvoiceFactory) -> None:
    _vat_trap(f, "vat_reduced_ok", category=f.rng.choice(["books", "food"]), ok=True)


def vat_off_by_cent(f: InvoiceFactory) -> None:
    s_net = f.rng.randint(40000, 380000)
    if s_net % 100 == 50:
        s_net += 1
    _vat_trap(f, "vat_off_by_cent", vat_delta=f.rng.choice([-1, 1]), net=s_net)


def _half_cent_net(f: InvoiceFactory) -> int:
    """A net ending in ,50: at 19 % and at 7 % its VAT ends in exactly half a cent."""
    return f.rng.randint(3, 3800) * 100 + 50


def vat_half_cent_ok(f: InvoiceFactory) -> None:
    _vat_trap(f, "vat_half_cent_ok", net=_half_cent_net(f), ok=True)


def vat_half_cent_wrong(f: InvoiceFactory) -> None:
    """The supplier rounded the half cent down (as float or banker's rounding would): one cent short."""
    _vat_trap(f, "vat_half_cent_wrong", net=_half_cent_net(f), vat_delta=-1)


def gross_mismatch(f: InvoiceFactory) -> None:
    _vat_trap(f, "gross_mismatch", gross_delta=f.rng.choice([100, -100, 900, 1000, -9]))


# ------------------------------------------------------------------ rule 6: approval limits
_LIMITS = (500000, 2500000, 10000000)


def _limit_invoice(f: InvoiceFactory, trap: str, gross: int, actor: str, intended: str) -> None:
    s, net = _supplier_reaching(f, gross)
    f.invoice(
        s,
        net,
        po=f.po_with_room(s, net, share=False).po_number,
        received=f.received_day(),
        trap=trap,
        actor=actor,
        intended=intended,
    )


def limit_exact(f: InvoiceFactory, index: int) -> None:
    """Gross exactly at the acting approver's limit: within it, approve."""
    limit = _LIMITS[index % 3]
    actor = f.rng.choice(f.approvers_with_limit(limit)).approver_id
    _limit_invoice(f, "limit_exact", limit, actor, "approve")


def limit_over(f: InvoiceFactory, index: int) -> None:
    """One cent above the acting approver's limit: escalate to the next sufficient approver."""
    limit = _LIMITS[index % 3]
    actor = f.rng.choice(f.approvers_with_limit(limit)).approver_id
    target = f.sufficient_approver(limit + 1)
    _limit_invoice(f, "limit_over", limit + 1, actor, f"escalate:{target}")


def escalation_tie(f: InvoiceFactory, index: int) -> None:
    """Several approvers qualify; the lowest sufficient limit wins, then the smallest approver ID."""
    actor_limit = _LIMITS[index % 2]
    gross_eur = f.rng.randint(actor_limit // 100 + 500, _LIMITS[index % 2 + 1] // 100 - 500)
    for _ in range(100):
        s = f.supplier()
        net = net_for_gross(gross_eur * 100 + f.rng.randint(0, 99), required_rate(s.category))
        if net is not None:
            break
    assert net is not None
    gross = gross_cents(net, required_rate(s.category))
    actor = f.rng.choice(f.approvers_with_limit(actor_limit)).approver_id
    target = f.sufficient_approver(gross)
    f.invoice(
        s,
        net,
        po=f.po_with_room(s, net, share=False).po_number,
        received=f.received_day(),
        trap="escalation_tie",
        actor=actor,
        intended=f"escalate:{target}",
    )


# ------------------------------------------------------------------ the plan
Planter = Callable[[InvoiceFactory], None]
IndexedPlanter = Callable[[InvoiceFactory, int], None]

PLAN: tuple[tuple[Planter, int], ...] = (
    (blocked_supplier, 5),
    (blocked_with_flaw, 2),
    (exact_duplicate, 4),
    (spelling_duplicate, 4),
    (duplicate_with_flaw, 2),
    (duplicate_of_approved, 4),
    (resubmission, 3),
    (rejected_history_resubmission, 2),
    (near_duplicate, 2),
    (missing_po, 4),
    (missing_po_boundary, 2),
    (kleinbetrag_no_po, 2),
    (kleinbetrag_exact, 2),
    (po_other_supplier, 3),
    (po_closed, 3),
    (po_unknown, 2),
    (kleinbetrag_bad_po, 2),
    (kleinbetrag_po_exceeded, 1),
    (po_budget_exact, 3),
    (po_budget_over, 3),
    (budget_chain, 4),
    (vat_wrong_rate, 3),
    (vat_books_at_19, 2),
    (vat_reduced_ok, 4),
    (vat_off_by_cent, 3),
    (vat_half_cent_ok, 3),
    (vat_half_cent_wrong, 3),
    (gross_mismatch, 3),
)
INDEXED_PLAN: tuple[tuple[IndexedPlanter, int], ...] = ((limit_exact, 3), (limit_over, 3), (escalation_tie, 3))


def plant_all(f: InvoiceFactory) -> None:
    """Plant every trap of ``PLAN`` in a fixed order (the RNG stream makes the result seed-determined)."""
    for planter, count in PLAN:
        for _ in range(count):
            planter(f)
    for indexed, count in INDEXED_PLAN:
        for index in range(count):
            indexed(f, index)
