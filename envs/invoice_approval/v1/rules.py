"""The v1 policy as code, and the reference solver that applies it through the agent's tools.

``decide`` is ``assets/invoice_approval/v1/policy.md`` as one function: rules 1-9 in order, the first failing
rule decides. ``solver_steps`` learns everything through the same tools an agent has (documents included, read
from their text), captures what the books got wrong, and decides in processing order. Its path is every
task's gold path; its variants (listed order, ID order, skipped checks) make wrong paths and shortcut baselines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ...core.actions import Action
from ..shared.money import required_rate, vat_cents, within_po_tolerance
from ..shared.numbers import normalize_invoice_number
from ..shared.rules import Ruling, Steps, drive, escalation_target
from .company import COMPANY_VAT_ID, has_required_note, treatment
from .reading import ReadDocument, read_document

KLEINBETRAG_LIMIT_CENTS = 25000
LIVE = ("received", "approved", "on_hold", "escalated")
Order = Literal["processing", "listed", "id"]
INBOX = re.compile(r"\bPE-\d{3}\b")
INVOICE_ID = re.compile(r"ER-\d{4}-\d{5}")


def processing_key(row: dict[str, Any]) -> tuple[str, str]:
    return (row["received_date"], row["invoice_id"])


@dataclass
class Case:
    """One document being decided: its record, what its document prints, its supplier."""

    record: dict[str, Any]
    doc: ReadDocument
    supplier: dict[str, Any]

    @property
    def iid(self) -> str:
        return str(self.record["invoice_id"])


@dataclass
class Books:
    """What the solver knows of the books: each supplier's documents (summary rows), POs with lines and
    received quantities, approvers and the actor. Kept current after its own decisions."""

    actor: dict[str, Any]
    approvers: list[dict[str, Any]]
    documents: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    pos: dict[str, dict[str, Any]] = field(default_factory=dict)
    received: dict[tuple[str, int], int] = field(default_factory=dict)
    originals: dict[str, dict[str, Any]] = field(default_factory=dict)


# ------------------------------------------------------------------ the rules
def is_duplicate(case: Case, books: Books) -> bool:
    key = normalize_invoice_number(case.doc.number)
    return any(
        row["invoice_id"] != case.iid
        and row["status"] in LIVE
        and row["supplier_invoice_no"] is not None
        and processing_key(row) < processing_key(case.record)
        and normalize_invoice_number(row["supplier_invoice_no"]) == key
        for row in books.documents[case.record["supplier_id"]]
    )


def credit_candidates(case: Case, books: Books) -> list[dict[str, Any]]:
    key = normalize_invoice_number(case.doc.corrects_no or "")
    return sorted(
        (
            row
            for row in books.documents[case.record["supplier_id"]]
            if row["kind"] == "invoice"
            and row["invoice_id"] != case.iid
            and row["supplier_invoice_no"] is not None
            and normalize_invoice_number(row["supplier_invoice_no"]) == key
        ),
        key=processing_key,
    )


def credit_problem(case: Case, books: Books) -> Ruling | None:
    """Rule 3, for credit notes: the original must exist, not be rejected, be approved, and have room."""
    found = credit_candidates(case, books)
    if not found:
        return Ruling(case.iid, "reject", "CREDIT_NO_ORIGINAL")
    live = [row for row in found if row["status"] != "rejected"]
    if not live:
        return Ruling(case.iid, "reject", "CREDIT_ORIGINAL_REJECTED")
    original = books.originals[live[0]["invoice_id"]]
    if original["status"] != "approved":
        return Ruling(case.iid, "hold", "CREDIT_ORIGINAL_OPEN")
    if case.doc.net_cents > original["net_cents"] - original["credited_cents"]:
        return Ruling(case.iid, "reject", "CREDIT_EXCEEDS_ORIGINAL")
    return None


def po_problem(case: Case, books: Books) -> Ruling | None:
    """Rules 4 and 5: a PO above 250.00 gross; a named PO must exist, be the supplier's and open; budget."""
    doc = case.doc
    if doc.po_number is None:
        return Ruling(case.iid, "reject", "MISSING_PO") if doc.gross_cents > KLEINBETRAG_LIMIT_CENTS else None
    po = books.pos.get(doc.po_number)
    if po is None or po["supplier_id"] != case.record["supplier_id"] or po["status"] != "open":
        return Ruling(case.iid, "reject", "INVALID_PO")
    if not within_po_tolerance(po["net_cents"], po["net_invoiced_cents"], doc.net_cents):
        return Ruling(case.iid, "hold", "PO_EXCEEDED")
    return None


def match_problem(case: Case, books: Books) -> Ruling | None:
    """Rule 6, goods POs only: every line's quantity within received minus invoiced, then every unit price
    at most 2 % above the PO line's."""
    po = books.pos[case.doc.po_number or ""]
    if po["kind"] != "goods":
        return None
    lines = {line["line_no"]: line for line in po["lines"]}
    for item in case.doc.lines:
        line = lines.get(item.po_line or 0)
        got = books.received.get((po["po_number"], item.po_line or 0), 0)
        if line is None or line["invoiced_qty"] + item.quantity > got:
            return Ruling(case.iid, "hold", "QUANTITY_NOT_RECEIVED")
    for item in case.doc.lines:
        if 100 * item.unit_price_cents > 102 * lines[item.po_line or 0]["unit_price_cents"]:
            return Ruling(case.iid, "hold", "PRICE_VARIANCE")
    return None


def tax_problem(case: Case) -> Ruling | None:
    """Rule 7: German VAT exactly for a German supplier; none, the note and both VAT IDs for an EU one."""
    doc, supplier = case.doc, case.supplier
    kind = treatment(supplier["country"], case.record["category"])
    if kind == "domestic":
        rate = required_rate(case.record["category"])
        if (
            doc.vat_rate != rate
            or doc.vat_cents != vat_cents(doc.net_cents, rate)
            or doc.gross_cents != doc.net_cents + doc.vat_cents
        ):
            return Ruling(case.iid, "reject", "VAT_ERROR")
        return None
    if doc.vat_rate != 0 or doc.vat_cents != 0 or doc.gross_cents != doc.net_cents:
        return Ruling(case.iid, "reject", "VAT_ERROR")
    if (
        not has_required_note([doc.notes], kind)
        or doc.seller_vat_id != supplier["vat_id"]
        or doc.buyer_vat_id != COMPANY_VAT_ID
    ):
        return Ruling(case.iid, "reject", "INVOICE_INCOMPLETE")
    return None


def decide(case: Case, books: Books, skip: frozenset[str] = frozenset()) -> Ruling:
    """Rules 1-9 in order; the first that fails decides. ``skip`` names rules a shortcut baseline leaves out."""
    iid, credit = case.iid, case.record["kind"] == "credit_note"
    if case.supplier["is_blocked"]:
        return Ruling(iid, "hold", "SUPPLIER_BLOCKED")
    if "duplicate" not in skip and is_duplicate(case, books):
        return Ruling(iid, "reject", "DUPLICATE")
    checks: list[Callable[[], Ruling | None]] = (
        [lambda: credit_problem(case, books)]
        if credit
        else [
            lambda: po_problem(case, books),
            lambda: None if case.doc.po_number is None else match_problem(case, books),
        ]
    )
    if "tax" not in skip:
        checks.append(lambda: tax_problem(case))
    for check in checks:
        ruling = check()
        if ruling is not None:
            return ruling
    limit = books.actor["limit_cents"]
    if not credit and limit is not None and case.doc.gross_cents > limit:
        pairs = ((a["approver_id"], a["limit_cents"]) for a in books.approvers)
        return Ruling(iid, "escalate", escalation_target(pairs, case.doc.gross_cents))
    return Ruling(iid, "approve")


def remember(ruling: Ruling, case: Case, books: Books) -> None:
    """Keep the picture current: the document's status and captured number; an approval's PO effects."""
    status = {"approve": "approved", "reject": "rejected", "hold": "on_hold", "escalate": "escalated"}[ruling.kind]
    for row in books.documents[case.record["supplier_id"]]:
        if row["invoice_id"] == case.iid:
            row["status"], row["supplier_invoice_no"] = status, case.doc.number
    if case.iid in books.originals:
        books.originals[case.iid]["status"] = status
    if ruling.kind != "approve":
        return
    sign = -1 if case.record["kind"] == "credit_note" else 1
    po = books.pos.get(case.doc.po_number or "")
    if po is not None:
        po["net_invoiced_cents"] += sign * case.doc.net_cents
        for item in case.doc.lines:
            for line in po["lines"]:
                if line["line_no"] == item.po_line:
                    line["invoiced_qty"] += sign * item.quantity
    if sign < 0:
        found = [r for r in credit_candidates(case, books) if r["status"] == "approved"]
        if found and found[0]["invoice_id"] in books.originals:
            books.originals[found[0]["invoice_id"]]["credited_cents"] += case.doc.net_cents


# ------------------------------------------------------------------ the solver


def read_json(name: str, **arguments: Any) -> Generator[Action, str, Any]:
    result = yield {"name": name, "arguments": arguments}
    return None if result.startswith("Error:") else json.loads(result)


def paged(name: str, key: str, **arguments: Any) -> Generator[Action, str, list[dict[str, Any]]]:
    """Every row of a paged listing, following ``next_cursor`` to the end."""
    rows: list[dict[str, Any]] = []
    cursor = ""
    while True:
        page = yield from read_json(name, **arguments, **({"cursor": cursor} if cursor else {}))
        rows += page[key]
        cursor = page["next_cursor"]
        if not cursor:
            return rows


def work_order_scope(observation: str) -> Generator[Action, str, list[str]]:
    """The work order's documents: the IDs it lists, or every received document of the inbox it names."""
    inbox = INBOX.search(observation)
    if inbox is None:
        return list(dict.fromkeys(INVOICE_ID.findall(observation)))
    rows = yield from paged("list_invoices", "invoices", status="received", inbox=inbox.group(0))
    return [row["invoice_id"] for row in rows]


def capture_action(record: dict[str, Any], doc: ReadDocument) -> Action | None:
    """The ``capture_invoice`` call that makes the record equal the document, or None when it already does."""
    values = doc.capture_values()
    if all(record[key] == value for key, value in values.items()):
        return None
    args = {"invoice_id": record["invoice_id"], **{k: v for k, v in values.items() if v is not None}}
    return {"name": "capture_invoice", "arguments": args}


def read_books(scope: Sequence[str], order: Order) -> Generator[Action, str, tuple[Books, list[Case]]]:
    actor = yield from read_json("whoami")
    approvers = (yield from read_json("list_approvers"))["approvers"]
    books = Books(actor, approvers)
    cases: list[Case] = []
    suppliers: dict[str, Any] = {}
    for iid in scope:
        record = yield from read_json("get_invoice", invoice_id=iid)
        doc = read_document((yield {"name": "get_document", "arguments": {"invoice_id": iid}}))
        sid = record["supplier_id"]
        if sid not in suppliers:
            suppliers[sid] = yield from read_json("get_supplier", supplier_id=sid)
            books.documents[sid] = yield from paged("list_invoices", "invoices", supplier_id=sid)
        cases.append(Case(record, doc, suppliers[sid]))
    yield from _read_pos(cases, books)
    yield from _read_originals(cases, books)
    if order == "processing":
        cases.sort(key=lambda c: processing_key(c.record))
    elif order == "id":
        cases.sort(key=lambda c: c.iid)
    return books, cases


def _read_pos(cases: Iterable[Case], books: Books) -> Generator[Action, str, None]:
    for number in dict.fromkeys(c.doc.po_number for c in cases if c.doc.po_number and c.record["kind"] == "invoice"):
        found = yield from read_json("get_purchase_order", po_number=number)
        if found is None:
            continue
        books.pos[number] = {**found["purchase_order"], "lines": found["lines"]}
        if found["purchase_order"]["kind"] == "goods":
            for receipt in (yield from paged("list_goods_receipts", "receipts", po_number=number)):
                key = (number, receipt["line_no"])
                books.received[key] = books.received.get(key, 0) + receipt["quantity"]


def _read_originals(cases: Iterable[Case], books: Books) -> Generator[Action, str, None]:
    for case in cases:
        if case.record["kind"] != "credit_note":
            continue
        for row in credit_candidates(case, books):
            if row["invoice_id"] not in books.originals:
                books.originals[row["invoice_id"]] = yield from read_json("get_invoice", invoice_id=row["invoice_id"])


def solver_steps(
    observation: str, order: Order = "processing", skip: frozenset[str] = frozenset(), fix: bool = True
) -> Steps:
    """The reference solver as a coroutine (yields tool calls, is sent observations). ``order``, ``skip`` and
    ``fix=False`` (no capture fixes) make the mistakes the wrong paths and shortcut baselines are built from."""
    scope = yield from work_order_scope(observation)
    books, cases = yield from read_books(scope, order)
    for case in cases:
        capture = capture_action(case.record, case.doc) if fix else None
        if capture is not None:
            yield capture
        if not fix:
            case = Case(case.record, _as_recorded(case), case.supplier)
        ruling = decide(case, books, skip)
        yield ruling.as_action()
        remember(ruling, case, books)


def _as_recorded(case: Case) -> ReadDocument:
    """The document as the books show it (an agent that never reads documents)."""
    r = case.record
    return ReadDocument(
        kind=r["kind"], number=r["supplier_invoice_no"] or "", invoice_date=r["invoice_date"] or "",
        po_number=r["po_number"], corrects_no=r["corrects_no"], lines=case.doc.lines, net_cents=r["net_cents"] or 0,
        vat_rate=r["vat_rate"] or 0, vat_cents=r["vat_cents"] or 0, gross_cents=r["gross_cents"] or 0,
        seller_vat_id=case.doc.seller_vat_id, buyer_vat_id=case.doc.buyer_vat_id, notes=case.doc.notes,
    )  # fmt: skip


def solve(call: Callable[[Action], str], opening: str, **kwargs: Any) -> list[Action]:
    return drive(solver_steps(opening, **kwargs), call)
