"""The planted traps of v1: documents built so that exactly one rule of the policy decides them.

v0's traps carried over to documents (blocked, duplicates, POs, budgets, VAT, limits) plus the new ones: EU
tax treatment, three-way match, credit notes, capture errors, and chains where processing order decides. Each
planter records its kind and what deciding it alone should give (hidden columns); the tests check every
planted document against the reference solver. ``plan_counts`` draws how many of each kind a company gets.
The v0 kinds are planted anew, not shared with ``../../authoring/traps.py``: a v1 trap is a document with
lines, PO lines and a capture, built by v1's ``Factory``, where v0's is one invoice row.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable

from ...shared.entities import Supplier
from ...shared.money import net_for_gross, required_rate, vat_cents
from ...shared.numbers import normalize_invoice_number, spelling_variant
from ..company import NOTE_PHRASES, treatment
from .factory import Factory
from .model import Capture, PurchaseOrder, V1Invoice

KLEIN = 25000
LIMITS = (500000, 2500000, 10000000)
Planter = Callable[[Factory], None]


def _hold(code: str) -> str:
    return f"hold:{code}"


def _reject(code: str) -> str:
    return f"reject:{code}"


def _big(f: Factory, s: Supplier) -> int:
    low = max(400.0, f.config["categories"][s.category]["net_eur"][0])
    return f.net(s.category, low, 3800)


def _on_po(f: Factory, s: Supplier, net: int, received: dt.date, exact: bool = False, **kw: object) -> V1Invoice:
    pairs = f.split(s.category, net, exact=exact)
    po, lines = f.po_for(s, pairs, received)
    return f.invoice(s, pairs, po=po, po_lines=lines, received=received, **kw)  # type: ignore[arg-type]


def _domestic(f: Factory, **kw: object) -> Supplier:
    return f.supplier(where="DE", **kw)  # type: ignore[arg-type]


def _later_captured(first: V1Invoice, second: V1Invoice) -> None:
    """Give ``second`` (received later) a smaller capture key than ``first``: IDs then run against arrival."""
    first.capture_key, second.capture_key = (
        second.received_date.toordinal() + 3.5,
        second.received_date.toordinal() + 0.5,
    )


# ------------------------------------------------------------------ rule 1
def blocked_supplier(f: Factory) -> None:
    s = f.supplier(blocked=True)
    _on_po(f, s, _big(f, s), f.day(), trap="blocked_supplier", intended=_hold("SUPPLIER_BLOCKED"))


def blocked_with_flaw(f: Factory) -> None:
    s = f.supplier(blocked=True, where="DE")
    inv = _on_po(f, s, _big(f, s), f.day(), trap="blocked_with_flaw", intended=_hold("SUPPLIER_BLOCKED"))
    f.reprice(inv, vat=inv.vat_cents + 1)


# ------------------------------------------------------------------ rule 2
def _duplicate(f: Factory, trap: str, respell: bool, drop_po: bool = False) -> None:
    d1, d2 = f.days(2)
    original = f.clean(f.supplier(), received=d1, po=True)
    original.trap = "duplicate_original"
    copy = f.invoice(
        original.supplier,
        [(x.quantity, x.unit_price_cents) for x in original.lines],
        po=None,
        received=d2,
        number=spelling_variant(original.number, f.rng) if respell else original.number,
        trap=trap,
        intended=_reject("DUPLICATE"),
    )
    copy.po_number = None if drop_po else original.po_number
    copy.lines = [dataclasses.replace(x) for x in original.lines]
    _later_captured(original, copy)


def exact_duplicate(f: Factory) -> None:
    _duplicate(f, "exact_duplicate", respell=False)


def spelling_duplicate(f: Factory) -> None:
    _duplicate(f, "spelling_duplicate", respell=True)


def duplicate_with_flaw(f: Factory) -> None:
    _duplicate(f, "duplicate_with_flaw", respell=True, drop_po=True)


def duplicate_of_approved(f: Factory) -> None:
    s = f.supplier()
    old = _on_po(f, s, _big(f, s), f.day(history=True), status="approved", trap="history_approved_original")
    copy = f.invoice(
        s,
        [(x.quantity, x.unit_price_cents) for x in old.lines],
        po=None,
        received=f.day(),
        number=spelling_variant(old.number, f.rng) if f.rng.random() < 0.5 else old.number,
        trap="duplicate_of_approved",
        intended=_reject("DUPLICATE"),
    )
    copy.po_number, copy.lines = old.po_number, [dataclasses.replace(x) for x in old.lines]


def resubmission(f: Factory) -> None:
    """A wrong invoice and its corrected resubmission under the same number, captured first: in processing
    order the original is rejected first, so the resubmission is no duplicate; in ID order it is one."""
    s = _domestic(f)
    d1, d2 = f.days(2)
    first = _on_po(f, s, _big(f, s), d1, trap="resubmission_original", intended=_reject("VAT_ERROR"))
    f.reprice(first, vat=first.vat_cents + f.rng.choice([-100, 100]))
    second = f.invoice(
        s,
        [(x.quantity, x.unit_price_cents) for x in first.lines],
        po=None,
        received=d2,
        number=spelling_variant(first.number, f.rng),
        trap="corrected_resubmission",
        intended=_reject("DUPLICATE"),
    )
    second.po_number, second.lines = first.po_number, [dataclasses.replace(x) for x in first.lines]
    _later_captured(first, second)


def rejected_history_resubmission(f: Factory) -> None:
    s = f.supplier()
    net = _big(f, s)
    old = f.invoice(
        s,
        f.split(s.category, net),
        po=None,
        received=f.day(history=True),
        status="rejected",
        trap="history_rejected_original",
    )
    old.reason_code = "MISSING_PO"
    _on_po(f, s, net, f.day(), number=old.number, trap="rejected_history_resubmission")


def near_duplicate(f: Factory) -> None:
    for _ in range(40):
        d1, d2 = f.days(2)
        original = f.clean(f.supplier(), received=d1, po=True)
        other = _drop_inner_zero(original.number)
        if other:
            original.trap = "near_duplicate_original"
            _on_po(f, original.supplier, _big(f, original.supplier), d2, number=other, trap="near_duplicate")
            return
        f.invoices.remove(original)
    raise RuntimeError("no near-duplicate number format found")


def _drop_inner_zero(number: str) -> str | None:
    for match in re.finditer("0", number):
        candidate = number[: match.start()] + number[match.end() :]
        if normalize_invoice_number(candidate) != normalize_invoice_number(number):
            return candidate
    return None


# ------------------------------------------------------------------ rules 4 and 5: PO and budget
def _reaching(f: Factory, gross: int) -> tuple[Supplier, int]:
    for _ in range(200):
        s = _domestic(f)
        net = net_for_gross(gross, required_rate(s.category))
        if net is not None:
            return s, net
    raise ValueError(f"no supplier reaches gross {gross}")


def missing_po(f: Factory) -> None:
    s = f.supplier()
    f.invoice(
        s, f.split(s.category, _big(f, s)), po=None, received=f.day(), trap="missing_po", intended=_reject("MISSING_PO")
    )


def missing_po_boundary(f: Factory) -> None:
    s, net = _reaching(f, KLEIN + 1)
    f.invoice(s, [(1, net)], po=None, received=f.day(), trap="missing_po_boundary", intended=_reject("MISSING_PO"))


def kleinbetrag_exact(f: Factory) -> None:
    s, net = _reaching(f, KLEIN)
    f.invoice(s, [(1, net)], po=None, received=f.day(), trap="kleinbetrag_exact")


def kleinbetrag_no_po(f: Factory) -> None:
    s = f.supplier()
    f.invoice(s, [(1, f.net(s.category, 20, 190))], po=None, received=f.day(), trap="kleinbetrag_no_po")


def po_other_supplier(f: Factory) -> None:
    s = f.supplier()
    other = f.supplier(exclude=(s.supplier_id,))
    net = _big(f, s)
    foreign = f.po(other, [(1, net * 3 // 2)])
    f.invoice(
        s,
        f.split(s.category, net),
        po=foreign,
        received=f.day(),
        trap="po_other_supplier",
        intended=_reject("INVALID_PO"),
    )


def po_closed(f: Factory) -> None:
    s = f.supplier()
    net = _big(f, s)
    closed = f.po(s, [(1, net * 3 // 2)], status="closed")
    f.invoice(
        s, f.split(s.category, net), po=closed, received=f.day(), trap="po_closed", intended=_reject("INVALID_PO")
    )


def po_unknown(f: Factory) -> None:
    s = f.supplier()
    inv = f.invoice(
        s, f.split(s.category, _big(f, s)), po=None, received=f.day(), trap="po_unknown", intended=_reject("INVALID_PO")
    )
    inv.po_number = f.new_po_number()


def kleinbetrag_bad_po(f: Factory) -> None:
    s = f.supplier()
    closed = f.po(s, [(1, 40000)], status="closed")
    f.invoice(
        s,
        [(1, f.net(s.category, 20, 190))],
        po=closed,
        received=f.day(),
        trap="kleinbetrag_bad_po",
        intended=_reject("INVALID_PO"),
    )


def _service_po(f: Factory, s: Supplier, value: int, invoiced: int) -> PurchaseOrder:
    po = f.po(s, [(1, value)])
    po.net_invoiced_cents = invoiced
    po.lines[0].invoiced_qty = 0
    return po


def po_budget_exact(f: Factory) -> None:
    s = f.supplier(service=True)
    value = f.rng.randint(2000, 9000) * 100
    invoiced = round(value * f.rng.choice([0.3, 0.5, 0.7]))
    po = _service_po(f, s, value, invoiced)
    f.invoice(s, [(1, value * 102 // 100 - invoiced)], po=po, po_lines=[1], received=f.day(), trap="po_budget_exact")


def po_budget_over(f: Factory) -> None:
    s = f.supplier(service=True)
    value = f.rng.randint(2000, 9000) * 100
    invoiced = round(value * f.rng.choice([0.3, 0.5, 0.7]))
    po = _service_po(f, s, value, invoiced)
    f.invoice(
        s,
        [(1, value * 102 // 100 - invoiced + 1)],
        po=po,
        po_lines=[1],
        received=f.day(),
        trap="po_budget_over",
        intended=_hold("PO_EXCEEDED"),
    )


def budget_chain(f: Factory) -> None:
    """Three invoices on one services PO; each fits alone, the first two together overrun. The later ones
    were captured first, so ID order holds a different invoice than processing order."""
    s = f.supplier(service=True)
    value = f.rng.randint(30, 70) * 10000
    po = _service_po(f, s, value, value // 5)
    room = value - value // 5
    made = []
    for day, share in zip(f.days(3), ((0.55, 0.7), (0.5, 0.6), (0.12, 0.2)), strict=True):
        made.append(
            f.invoice(
                s, [(1, round(room * f.rng.uniform(*share)))], po=po, po_lines=[1], received=day, trap="budget_chain"
            )
        )
    for k, inv in enumerate(made):
        inv.capture_key = made[-1].received_date.toordinal() + 3 - k


# ------------------------------------------------------------------ rule 7: VAT (domestic)
def _vat(
    f: Factory,
    trap: str,
    ok: bool,
    *,
    net: int | None = None,
    service: bool | None = None,
    edit: Callable[[V1Invoice], None],
) -> None:
    s = _domestic(f, service=service)
    net = net or _big(f, s)
    inv = _on_po(f, s, net, f.day(), exact=True, trap=trap, intended="approve" if ok else _reject("VAT_ERROR"))
    edit(inv)


def vat_wrong_rate(f: Factory) -> None:
    """The other German rate: 7 % on a 19 % category, or 19 % on books and food."""
    _vat(f, "vat_wrong_rate", False, edit=lambda i: f.reprice(i, rate=26 - required_rate(i.category)))


def vat_off_by_cent(f: Factory) -> None:
    _vat(f, "vat_off_by_cent", False, edit=lambda i: f.reprice(i, vat=i.vat_cents + f.rng.choice([-1, 1])))


def vat_half_cent_ok(f: Factory) -> None:
    _vat(f, "vat_half_cent_ok", True, net=f.rng.randint(3, 3800) * 100 + 50, edit=lambda i: None)


def vat_half_cent_wrong(f: Factory) -> None:
    _vat(
        f,
        "vat_half_cent_wrong",
        False,
        net=f.rng.randint(3, 3800) * 100 + 50,
        edit=lambda i: f.reprice(i, vat=i.vat_cents - 1),
    )


def gross_mismatch(f: Factory) -> None:
    _vat(
        f,
        "gross_mismatch",
        False,
        edit=lambda i: f.reprice(i, vat=i.vat_cents, gross=i.gross_cents + f.rng.choice([100, -100, 900, -9])),
    )


def _reduced(f: Factory, trap: str, rate: int, ok: bool) -> None:
    s = (
        f.supplier(where="DE")
        if not [x for x in f.suppliers if x.category in ("books", "food") and not x.is_blocked]
        else f.rng.choice([x for x in f.suppliers if x.category in ("books", "food") and not x.is_blocked])
    )
    net = f.net(s.category, 300, 2000)
    inv = _on_po(f, s, net, f.day(), trap=trap, intended="approve" if ok else _reject("VAT_ERROR"))
    f.reprice(inv, rate=rate)


def vat_reduced_ok(f: Factory) -> None:
    _reduced(f, "vat_reduced_ok", 7, True)


def vat_reduced_at_19(f: Factory) -> None:
    _reduced(f, "vat_reduced_at_19", 19, False)


# ------------------------------------------------------------------ rule 8: limits
def _limit(f: Factory, trap: str, gross: int, actor: str, intended: str) -> None:
    s, net = _reaching(f, gross)
    _on_po(f, s, net, f.day(), exact=True, trap=trap, actor=actor, intended=intended)


def limit_exact(f: Factory) -> None:
    limit = f.rng.choice(LIMITS)
    _limit(f, "limit_exact", limit, f.rng.choice(f.approvers_with_limit(limit)).approver_id, "approve")


def limit_over(f: Factory) -> None:
    limit = f.rng.choice(LIMITS)
    actor = f.rng.choice(f.approvers_with_limit(limit)).approver_id
    _limit(f, "limit_over", limit + 1, actor, f"escalate:{f.sufficient_approver(limit + 1)}")


def escalation_tie(f: Factory) -> None:
    index = f.rng.randrange(2)
    gross_eur = f.rng.randint(LIMITS[index] // 100 + 500, LIMITS[index + 1] // 100 - 500)
    s, net = _reaching_any(f, gross_eur * 100)
    gross = net + vat_cents(net, required_rate(s.category))
    actor = f.rng.choice(f.approvers_with_limit(LIMITS[index])).approver_id
    _on_po(
        f,
        s,
        net,
        f.day(),
        exact=True,
        trap="escalation_tie",
        actor=actor,
        intended=f"escalate:{f.sufficient_approver(gross)}",
    )


def _reaching_any(f: Factory, around: int) -> tuple[Supplier, int]:
    for _ in range(200):
        s = _domestic(f)
        net = net_for_gross(around + f.rng.randint(0, 99), required_rate(s.category))
        if net is not None:
            return s, net
    raise ValueError("no gross reachable")


# ------------------------------------------------------------------ EU tax treatment
def _eu(f: Factory, trap: str, service: bool, intended: str, edit: Callable[[V1Invoice], None]) -> None:
    s = f.supplier(where="EU", service=service)
    inv = _on_po(f, s, _big(f, s), f.day(), trap=trap, intended=intended)
    edit(inv)


def rc_ok(f: Factory) -> None:
    _eu(f, "rc_ok", True, "approve", lambda i: None)


def ige_ok(f: Factory) -> None:
    _eu(f, "ige_ok", False, "approve", lambda i: None)


def rc_german_vat(f: Factory) -> None:
    """Reverse charge ignored: German VAT on the invoice and no note."""

    def edit(invoice: V1Invoice) -> None:
        f.reprice(invoice, rate=19)
        invoice.notes = ()

    _eu(f, "rc_german_vat", True, _reject("VAT_ERROR"), edit)


def ige_german_vat(f: Factory) -> None:
    _eu(f, "ige_german_vat", False, _reject("VAT_ERROR"), lambda i: f.reprice(i, rate=19))


def rc_missing_note(f: Factory) -> None:
    _eu(f, "rc_missing_note", True, _reject("INVOICE_INCOMPLETE"), lambda i: setattr(i, "notes", ()))


def rc_wrong_note(f: Factory) -> None:
    _eu(
        f,
        "rc_wrong_note",
        True,
        _reject("INVOICE_INCOMPLETE"),
        lambda i: setattr(i, "notes", ("Steuerfreie innergemeinschaftliche Lieferung",)),
    )


def ige_missing_buyer_vat(f: Factory) -> None:
    _eu(
        f, "ige_missing_buyer_vat", False, _reject("INVOICE_INCOMPLETE"), lambda i: setattr(i, "buyer_vat_shown", False)
    )


def eu_missing_seller_vat(f: Factory) -> None:
    _eu(
        f,
        "eu_missing_seller_vat",
        f.rng.random() < 0.5,
        _reject("INVOICE_INCOMPLETE"),
        lambda i: setattr(i, "seller_vat_shown", False),
    )


def eu_limit_net(f: Factory) -> None:
    """An EU invoice's gross is its net: a net exactly at a limit is within it (the self-assessed tax is
    not part of the gross)."""
    limit = f.rng.choice(LIMITS[:2])
    s = f.supplier(where="EU")
    actor = f.rng.choice(f.approvers_with_limit(limit)).approver_id
    _on_po(f, s, limit, f.day(), exact=True, trap="eu_limit_net", actor=actor, intended="approve")


# ------------------------------------------------------------------ rule 6: three-way match
def _goods_po(
    f: Factory, s: Supplier, qty: int, price: int, received_qty: int, invoiced_qty: int, day: dt.date
) -> PurchaseOrder:
    """A goods PO: line 1 is the trap's line; line 2 leaves budget room, so only the match can fail."""
    po = f.po(s, [(qty, price), (qty, price)])
    po.lines[0].invoiced_qty = invoiced_qty
    po.net_invoiced_cents = invoiced_qty * price
    f.receive(po, 1, received_qty, day)
    return po


def _goods_supplier(f: Factory) -> Supplier:
    return f.supplier(service=False)


def _price(f: Factory) -> int:
    return f.rng.randint(4, 400) * 50


def qty_not_received(f: Factory) -> None:
    s, day, price = _goods_supplier(f), f.day(), _price(f)
    qty = f.rng.randint(6, 30)
    po = _goods_po(f, s, qty, price, f.rng.randint(0, qty - 2), 0, day)
    f.invoice(
        s,
        [(qty, price)],
        po=po,
        po_lines=[1],
        received=day,
        trap="qty_not_received",
        intended=_hold("QUANTITY_NOT_RECEIVED"),
    )


def qty_partial_ok(f: Factory) -> None:
    s, day, price = _goods_supplier(f), f.day(), _price(f)
    qty = f.rng.randint(6, 30)
    got = f.rng.randint(2, qty - 2)
    po = _goods_po(f, s, qty, price, got, 0, day)
    f.invoice(s, [(got, price)], po=po, po_lines=[1], received=day, trap="qty_partial_ok")


def qty_already_invoiced(f: Factory) -> None:
    s, day, price = _goods_supplier(f), f.day(), _price(f)
    qty = f.rng.randint(6, 30)
    po = _goods_po(f, s, qty, price, qty, qty, day)
    f.invoice(
        s,
        [(f.rng.randint(1, qty), price)],
        po=po,
        po_lines=[1],
        received=day,
        trap="qty_already_invoiced",
        intended=_hold("QUANTITY_NOT_RECEIVED"),
    )


def price_variance(f: Factory) -> None:
    s, day, price = _goods_supplier(f), f.day(), _price(f)
    qty = f.rng.randint(2, 20)
    po = _goods_po(f, s, qty, price, qty, 0, day)
    over = price * 102 // 100 + f.rng.choice([1, price // 100 + 1])
    f.invoice(
        s, [(qty, over)], po=po, po_lines=[1], received=day, trap="price_variance", intended=_hold("PRICE_VARIANCE")
    )


def price_exact_2pct(f: Factory) -> None:
    s, day, price = _goods_supplier(f), f.day(), _price(f)
    qty = f.rng.randint(2, 20)
    po = _goods_po(f, s, qty, price, qty, 0, day)
    f.invoice(s, [(qty, price * 102 // 100)], po=po, po_lines=[1], received=day, trap="price_exact_2pct")


def qty_chain(f: Factory) -> None:
    """Two invoices on one PO line; the receipts cover either, not both. Captured against arrival."""
    s, price = _goods_supplier(f), _price(f)
    d1, d2 = f.days(2)
    a, b = f.rng.randint(3, 12), f.rng.randint(3, 12)
    po = _goods_po(f, s, a + b + 5, price, max(a, b) + f.rng.randint(0, min(a, b) - 1), 0, d1)
    first = f.invoice(s, [(a, price)], po=po, po_lines=[1], received=d1, trap="qty_chain")
    second = f.invoice(s, [(b, price)], po=po, po_lines=[1], received=d2, trap="qty_chain")
    _later_captured(first, second)


# ------------------------------------------------------------------ credit notes
def _original(f: Factory, status: str, *, big: bool = False, where: str = "any") -> V1Invoice:
    s = f.supplier(where=where)
    net = f.net(s.category, 6500, 30000) if big else _big(f, s)
    inv = _on_po(f, s, net, f.day(history=True), status=status, trap="credit_original")
    if status == "rejected":
        inv.reason_code = "VAT_ERROR"
    if status == "on_hold":
        inv.reason_code = "PO_EXCEEDED"
    return inv


def _credit(
    f: Factory,
    original: V1Invoice,
    trap: str,
    intended: str,
    *,
    share: float | None = None,
    received: dt.date | None = None,
    actor: str | None = None,
) -> V1Invoice:
    line = original.lines[0]
    qty = max(1, int(line.quantity * (share or f.rng.uniform(0.2, 0.6))))
    corrects = spelling_variant(original.number, f.rng) if f.rng.random() < 0.4 else original.number
    return f.invoice(
        original.supplier,
        [(qty, line.unit_price_cents)],
        po=next(p for p in f.pos if p.po_number == original.po_number),
        po_lines=[line.po_line or 1],
        received=received or f.day(),
        kind="credit_note",
        corrects_no=corrects,
        trap=trap,
        intended=intended,
        actor=actor,
    )


def _teamleiter(f: Factory) -> str:
    return f.rng.choice(f.approvers_with_limit(LIMITS[0])).approver_id


def credit_ok(f: Factory) -> None:
    original = _original(f, "approved")
    _credit(f, original, "credit_ok", "approve", actor=_teamleiter(f))


def credit_above_limit(f: Factory) -> None:
    """Approval limits do not apply to credit notes: a Teamleiter approves one above 5,000.00."""
    original = _original(f, "approved", big=True, where="DE")
    _credit(f, original, "credit_above_limit", "approve", share=0.9, actor=_teamleiter(f))


def credit_no_original(f: Factory) -> None:
    original = _original(f, "approved")
    note = _credit(f, original, "credit_no_original", _reject("CREDIT_NO_ORIGINAL"))
    note.corrects_no = f.number(original.supplier)  # the supplier's series, but never issued


def credit_other_supplier(f: Factory) -> None:
    """The number exists, but at another supplier: no original."""
    original = _original(f, "approved")
    other = f.supplier(exclude=(original.supplier.supplier_id,))
    note = _credit(f, original, "credit_other_supplier", _reject("CREDIT_NO_ORIGINAL"))
    note.supplier = other
    note.category, note.expense_account = original.category, original.expense_account
    note.po_number = None
    _retax(f, note)


def _retax(f: Factory, note: V1Invoice) -> None:
    treat = treatment(note.supplier.country, note.supplier.category)
    note.category = note.supplier.category
    note.expense_account = f.config["categories"][note.category]["account"]
    note.vat_rate = required_rate(note.category) if treat == "domestic" else 0
    note.vat_cents = vat_cents(note.net_cents, note.vat_rate)
    note.gross_cents = note.net_cents + note.vat_cents
    note.notes = () if treat == "domestic" else (f.rng.choice(NOTE_PHRASES[treat]),)
    note.buyer_vat_shown = True


def credit_original_rejected(f: Factory) -> None:
    _credit(f, _original(f, "rejected"), "credit_original_rejected", _reject("CREDIT_ORIGINAL_REJECTED"))


def credit_original_open(f: Factory) -> None:
    _credit(f, _original(f, "on_hold"), "credit_original_open", _hold("CREDIT_ORIGINAL_OPEN"))


def credit_exceeds(f: Factory) -> None:
    """The original was already credited last month (in full or nearly): the new credit exceeds the rest."""
    original = _original(f, "approved")
    earlier = _credit(
        f, original, "history_credit", "approve", share=f.rng.choice([1.0, 0.8]), received=f.day(history=True)
    )
    earlier.status = "approved"
    original.credited_cents = earlier.net_cents
    line = original.lines[0]
    left = original.net_cents - earlier.net_cents
    qty = left // line.unit_price_cents + 1
    note = _credit(f, original, "credit_exceeds", _reject("CREDIT_EXCEEDS_ORIGINAL"))
    note.lines[0].quantity = qty
    f.reprice(note)


def credit_chain(f: Factory) -> None:
    """An invoice and its credit note arrive this month; the credit note was captured first."""
    d1, d2 = f.days(2)
    original = f.clean(f.supplier(), received=d1, po=True)
    original.trap = "credit_chain_original"
    note = _credit(f, original, "credit_chain", _hold("CREDIT_ORIGINAL_OPEN"), received=d2)
    _later_captured(original, note)


def credit_vat_error(f: Factory) -> None:
    original = _original(f, "approved", where="DE")
    note = _credit(f, original, "credit_vat_error", _reject("VAT_ERROR"))
    f.reprice(note, vat=note.vat_cents + 1)


# ------------------------------------------------------------------ capture
def _captured(inv: V1Invoice, **changes: object) -> None:
    inv.capture = dataclasses.replace(inv.printed(), **changes)  # type: ignore[arg-type]


def not_captured(f: Factory) -> None:
    inv = f.clean(received=f.day(), po=True)
    inv.trap, inv.capture = "not_captured", Capture(None, None, None, None, None, None, None, None)


def capture_wrong_amounts(f: Factory) -> None:
    s = _domestic(f)
    inv = _on_po(f, s, _big(f, s), f.day(), trap="capture_wrong_amounts")
    net = inv.net_cents
    wrong = int(str(net)[::-1].lstrip("0") or "1") if str(net) != str(net)[::-1] else net + 90
    rate = inv.vat_rate
    _captured(inv, net_cents=wrong, vat_cents=vat_cents(wrong, rate), gross_cents=wrong + vat_cents(wrong, rate))


def capture_wrong_po(f: Factory) -> None:
    s = f.supplier()
    inv = _on_po(f, s, _big(f, s), f.day(), trap="capture_wrong_po")
    other = f.rng.choice([p for p in f.pos if p.supplier_id != s.supplier_id])
    _captured(inv, po_number=other.po_number)


def capture_wrong_number(f: Factory) -> None:
    """The record carries the number of last month's approved invoice (a typo that looks like a duplicate)."""
    old = _on_po(
        f, s := f.supplier(), _big(f, s), f.day(history=True), status="approved", trap="history_approved_original"
    )
    inv = _on_po(f, s, _big(f, s), f.day(), trap="capture_wrong_number")
    _captured(inv, supplier_invoice_no=old.number, invoice_date=inv.invoice_date - dt.timedelta(days=31))


def capture_hides_flaw(f: Factory) -> None:
    """The record looks right; the document shows VAT one cent off."""
    s = _domestic(f)
    inv = _on_po(f, s, _big(f, s), f.day(), trap="capture_hides_flaw", intended=_reject("VAT_ERROR"))
    clean = inv.printed()
    f.reprice(inv, vat=inv.vat_cents + 1)
    inv.capture = clean


# ------------------------------------------------------------------ the plan
PLANTERS: tuple[Planter, ...] = (
    blocked_supplier, blocked_with_flaw, exact_duplicate, spelling_duplicate, duplicate_with_flaw,
    duplicate_of_approved, resubmission, rejected_history_resubmission, near_duplicate, missing_po,
    missing_po_boundary, kleinbetrag_exact, kleinbetrag_no_po, po_other_supplier, po_closed, po_unknown,
    kleinbetrag_bad_po, po_budget_exact, po_budget_over, budget_chain, vat_wrong_rate, vat_off_by_cent,
    vat_half_cent_ok, vat_half_cent_wrong, gross_mismatch, vat_reduced_ok, vat_reduced_at_19, limit_exact,
    limit_over, escalation_tie, rc_ok, ige_ok, rc_german_vat, ige_german_vat, rc_missing_note, rc_wrong_note,
    ige_missing_buyer_vat, eu_missing_seller_vat, eu_limit_net, qty_not_received, qty_partial_ok,
    qty_already_invoiced, price_variance, price_exact_2pct, qty_chain, credit_ok, credit_above_limit,
    credit_no_original, credit_other_supplier, credit_original_rejected, credit_original_open, credit_exceeds,
    credit_chain, credit_vat_error, not_captured, capture_wrong_amounts, capture_wrong_po, capture_wrong_number,
    capture_hides_flaw,
)  # fmt: skip


def plant_all(f: Factory) -> None:
    """Every planter 2-4 times (drawn per company), in a fixed order, each instance in its own group."""
    for planter in PLANTERS:
        for _ in range(f.rng.randint(2, 4)):
            f.new_group()
            planter(f)
