"""The fixed action catalogue of InvoiceApproval-v1 for discrete-action learners (``wrappers.DiscreteToolCalls``).

v0's catalogue (``../catalogue.py``) with what v1 adds: documents to read and capture from, paged listings
(each "list" entry reads the next page, following the cursor the last page gave), goods receipts, the original
of a credit note, the new reason codes, and work orders that name an inbox instead of documents. Index layout
(``slots`` = S work-order slots, ``approvers`` = A approver places; defaults S=10, A=16, which give
K = 4 + S * (23 + A) = 394 entries):

    0                   finish
    1                   whoami
    2                   list_approvers
    3                   list the work order's inbox, next page          list_invoices (status received, inbox)
    4 + k*B + 0         read the document in work-order slot k          get_invoice
            + 1         read what its supplier sent                     get_document
            + 2         read its supplier                               get_supplier
            + 3         list its supplier's documents, next page        list_invoices (supplier_id)
            + 4         read the purchase order its document names      get_purchase_order
            + 5         list that PO's goods receipts, next page        list_goods_receipts
            + 6         read the next unread original it corrects       get_invoice (a credit note's original)
            + 7         capture it as its document prints it            capture_invoice
            + 8         approve it
            + 9..16     reject it: the 8 reject codes (``tools.RejectCode``, in order)
            + 17..21    hold it: the 5 hold codes (``tools.HoldCode``, in order)
            + 22        escalate it to the approver rule 8 names (lowest sufficient limit, smallest ID)
            + 23 + j    escalate it to approver j (the company's approvers in ID order)

Slot k is the k-th document ID in the work order, in the order it lists them; for an inbox work order, the
k-th received document the inbox listing has shown (ID order). Supplier, PO, receipts, originals and capture
values come from what ``get_invoice`` and ``get_document`` returned, so those entries are masked until then;
a supplier, PO or original read serves every slot that shares it. The escalation target follows the
document's gross once read (the document wins), else the record's.

Masked: empty slots; reads already made and listings read to their last page; the PO of a document that names
none; receipts of a PO that is not goods; a capture when the record already equals the document; decisions on
a slot already decided; approving a record known to be uncaptured; escalations to the acting approver. Other
decisions are not masked before a read: deciding blind is the policy's mistake to make. Single tasks have two
documents and batch tasks at most 10; long and hard tasks need ``slots=28``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_args

import numpy as np
from numpy.typing import NDArray

from ...core.actions import FINISH, FINISH_ACTION, Action
from ...core.catalogue import UNKNOWN, Internal
from ..shared.catalogue import APPROVER_ID, Entry, SlotCatalogue, company_approvers
from .reading import ReadDocument, read_document
from .rules import INBOX, INVOICE_ID, Books, Case, capture_action, credit_candidates
from .sandbox import call, open_episode
from .tools import HoldCode, RejectCode

if TYPE_CHECKING:
    from ..shared.env_base import InvoiceToolEnv

GLOBALS = ("whoami", "list_approvers", "list_inbox")
READS = (
    "read_invoice",
    "read_document",
    "read_supplier",
    "list_supplier_invoices",
    "read_po",
    "list_receipts",
    "read_original",
    "capture",
)
DECISIONS: tuple[tuple[str, str], ...] = (
    ("approve", ""),
    *(("reject", code) for code in get_args(RejectCode)),
    *(("hold", code) for code in get_args(HoldCode)),
    ("escalate", "target"),
)
SLOT_FEATURES = 9
GLOBAL_FEATURES = 5


@dataclass
class Paging:
    """A paged listing as far as it was read: its rows, the cursor of the next page, whether that was the last."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    cursor: str = ""
    done: bool = False

    def arguments(self, **fixed: str) -> dict[str, str]:
        return {**fixed, **({"cursor": self.cursor} if self.cursor else {})}

    def add(self, page: Mapping[str, Any], key: str) -> None:
        self.rows += page[key]
        self.cursor = page["next_cursor"] or ""
        self.done = not self.cursor


@dataclass
class Slot:
    """What the episode has shown about one work-order document."""

    invoice_id: str
    record: dict[str, Any] | None = None
    doc: ReadDocument | None = None
    decided: bool = False

    @property
    def supplier_id(self) -> str:
        return str(self.record["supplier_id"]) if self.record else UNKNOWN

    @property
    def po_number(self) -> str | None:
        return self.doc.po_number if self.doc else None


@dataclass
class PoSeen:
    """A purchase order as read (``found`` None: it does not exist) and its receipts as far as listed."""

    found: dict[str, Any] | None
    receipts: Paging = field(default_factory=Paging)


def slot_entries(slot: int, approvers: int) -> list[Entry]:
    """The B = 23 + ``approvers`` entries of one slot, in index order."""
    entries = [Entry(verb, slot) for verb in READS]
    entries += [Entry(verb, slot, arg) for verb, arg in DECISIONS]
    entries += [Entry("escalate_to", slot, str(j)) for j in range(approvers)]
    return entries


class InvoiceCatalogueV1(SlotCatalogue[Slot]):
    """The slot-based catalogue above, with the per-episode state that fills in its arguments."""

    def __init__(
        self, env: InvoiceToolEnv[Any], *, horizon: int | None = None, slots: int = 10, approvers: int = 16
    ) -> None:
        approvers_ = company_approvers(env.bundle.template, env.bundle.tasks, open_episode, call)
        self._lay_out(approvers_, approvers, GLOBALS, slot_entries, slots)
        self.horizon = horizon if horizon is not None else env.max_turns  # scales the turn feature
        self.numeric_size = GLOBAL_FEATURES + SLOT_FEATURES * slots
        self.start("", {})

    # ------------------------------------------------------------------ episode state
    def start(self, observation: str, info: Mapping[str, Any]) -> None:
        ids = list(dict.fromkeys(INVOICE_ID.findall(observation)))
        inbox = INBOX.search(observation)
        self.inbox = inbox.group(0) if inbox and not ids else ""
        self.slots = [Slot(iid) for iid in ids[: self.slot_count]]
        actor = APPROVER_ID.search(observation)
        self.actor = actor.group(0) if actor else ""
        self.steps = 0
        self.read_globals = {"whoami": False, "list_approvers": False}
        self.inbox_pages = Paging(done=not self.inbox)
        self.suppliers_read: set[str] = set()
        self.listings: dict[str, Paging] = {}
        self.pos: dict[str, PoSeen] = {}
        self.originals_read: set[str] = set()
        self.last_error = False

    def _listing(self, slot: Slot) -> Paging:
        return self.listings.get(slot.supplier_id, Paging())

    def _unread_originals(self, slot: Slot) -> list[str]:
        """The originals a credit note may correct (``rules.credit_candidates`` over its supplier's full
        listing), those not read yet, in processing order."""
        listing = self._listing(slot)
        if slot.record is None or slot.doc is None or slot.record["kind"] != "credit_note" or not listing.done:
            return []
        books = Books({}, [], documents={slot.supplier_id: listing.rows})
        found = credit_candidates(Case(slot.record, slot.doc, {}), books)
        return [row["invoice_id"] for row in found if row["invoice_id"] not in self.originals_read]

    # ------------------------------------------------------------------ meaning of an index
    def resolve(self, index: int) -> Action | Internal:
        entry = self.entries[index]
        if entry.slot < 0:
            return self._global(entry)
        slot = self._slot(entry) or Slot(UNKNOWN)
        if entry.verb in READS:
            return self._read(entry, slot)
        return self._decision(entry, slot)

    def _global(self, entry: Entry) -> Action:
        if entry.verb == FINISH:
            return FINISH_ACTION
        if entry.verb == "list_inbox":
            args = self.inbox_pages.arguments(status="received", inbox=self.inbox or UNKNOWN)
            return {"name": "list_invoices", "arguments": args}
        return {"name": entry.verb, "arguments": {}}

    def _read(self, entry: Entry, slot: Slot) -> Action:
        iid, po = slot.invoice_id, slot.po_number or UNKNOWN
        if entry.verb == "read_invoice":
            return {"name": "get_invoice", "arguments": {"invoice_id": iid}}
        if entry.verb == "read_document":
            return {"name": "get_document", "arguments": {"invoice_id": iid}}
        if entry.verb == "read_supplier":
            return {"name": "get_supplier", "arguments": {"supplier_id": slot.supplier_id}}
        if entry.verb == "list_supplier_invoices":
            return {"name": "list_invoices", "arguments": self._listing(slot).arguments(supplier_id=slot.supplier_id)}
        if entry.verb == "read_po":
            return {"name": "get_purchase_order", "arguments": {"po_number": po}}
        if entry.verb == "list_receipts":
            seen = self.pos.get(po, PoSeen(None))
            return {"name": "list_goods_receipts", "arguments": seen.receipts.arguments(po_number=po)}
        if entry.verb == "read_original":
            originals = self._unread_originals(slot)
            return {"name": "get_invoice", "arguments": {"invoice_id": originals[0] if originals else UNKNOWN}}
        return self._capture(slot)

    @staticmethod
    def _capture(slot: Slot) -> Action:
        """Every field as the document prints it (what ``rules.capture_action`` sends when the record differs)."""
        values = slot.doc.capture_values() if slot.doc else {}
        args = {"invoice_id": slot.invoice_id, **{k: v for k, v in values.items() if v is not None}}
        return {"name": "capture_invoice", "arguments": args}

    def _decision(self, entry: Entry, slot: Slot) -> Action:
        return self._decide(entry, slot.invoice_id, lambda: self._target(slot))

    def _target(self, slot: Slot) -> str:
        """The document's gross once read (the document wins over a wrong capture), else the record's."""
        return self._escalation(slot.doc.gross_cents if slot.doc else (slot.record or {}).get("gross_cents"))

    def apply(self, internal: Internal) -> str:
        raise ValueError(f"the InvoiceApproval-v1 catalogue has no internal entries (got {internal})")

    # ------------------------------------------------------------------ learning from results
    def observe(self, index: int, observation: str, is_error: bool) -> None:
        self.steps += 1
        self.last_error = is_error
        entry, action = self.entries[index], self.resolve(index)
        if entry.verb == "read_po" and isinstance(action, dict) and is_error and "not found" in observation:
            self.pos[action["arguments"]["po_number"]] = PoSeen(None)  # read: it does not exist
        if is_error or not isinstance(action, dict):
            return
        if entry.verb in self.read_globals:
            self.read_globals[entry.verb] = True
        elif entry.verb == "list_inbox":
            self._inbox_page(json.loads(observation))
        elif (slot := self._slot(entry)) is not None:
            self._slot_result(entry, slot, action, observation)

    def _inbox_page(self, page: Mapping[str, Any]) -> None:
        self.inbox_pages.add(page, "invoices")
        known = {slot.invoice_id for slot in self.slots}
        for row in page["invoices"]:
            if row["invoice_id"] not in known and len(self.slots) < self.slot_count:
                self.slots.append(Slot(row["invoice_id"]))

    def _slot_result(self, entry: Entry, slot: Slot, action: Action, observation: str) -> None:
        args = action["arguments"]
        if entry.verb == "read_invoice":
            slot.record = json.loads(observation)
        elif entry.verb == "read_document":
            slot.doc = read_document(observation)
        elif entry.verb == "read_supplier":
            self.suppliers_read.add(args["supplier_id"])
        elif entry.verb == "list_supplier_invoices":
            self.listings.setdefault(args["supplier_id"], Paging()).add(json.loads(observation), "invoices")
        elif entry.verb == "read_po":
            found = json.loads(observation)
            self.pos[args["po_number"]] = PoSeen({**found["purchase_order"], "lines": found["lines"]})
        elif entry.verb == "list_receipts" and args["po_number"] in self.pos:  # a masked listing is not kept
            self.pos[args["po_number"]].receipts.add(json.loads(observation), "receipts")
        elif entry.verb == "read_original":
            self.originals_read.add(args["invoice_id"])
        elif entry.verb == "capture" and slot.record is not None and slot.doc is not None:
            slot.record.update(slot.doc.capture_values())
        elif entry.verb not in READS:
            slot.decided = True

    # ------------------------------------------------------------------ masks and features
    def _allowed(self, entry: Entry) -> bool:
        if entry.slot < 0:
            if entry.verb == "list_inbox":
                return not self.inbox_pages.done
            return entry.verb == FINISH or not self.read_globals[entry.verb]
        slot = self._slot(entry)
        if slot is None:
            return False
        if entry.verb in READS:
            return self._read_allowed(entry.verb, slot)
        if slot.decided:
            return False
        if entry.verb == "approve":
            return slot.record is None or slot.record["net_cents"] is not None
        if entry.verb == "escalate":
            return (slot.record is not None or slot.doc is not None) and self._target(slot) not in (UNKNOWN, self.actor)
        if entry.verb == "escalate_to":
            return self._approver(int(entry.arg)) not in (UNKNOWN, self.actor)
        return True

    def _read_allowed(self, verb: str, slot: Slot) -> bool:
        record, doc, po = slot.record, slot.doc, slot.po_number
        if verb == "read_invoice":
            return record is None
        if verb == "read_document":
            return doc is None
        if verb == "read_supplier":
            return record is not None and slot.supplier_id not in self.suppliers_read
        if verb == "list_supplier_invoices":
            return record is not None and not self._listing(slot).done
        if verb == "read_po":
            return po is not None and po not in self.pos
        if verb == "list_receipts":
            seen = self.pos.get(po or "")
            return (
                seen is not None and seen.found is not None and seen.found["kind"] == "goods" and not seen.receipts.done
            )
        if verb == "read_original":
            return bool(self._unread_originals(slot))
        return not slot.decided and record is not None and doc is not None and capture_action(record, doc) is not None

    def numeric(self) -> NDArray[np.float32]:
        values = [
            min(1.0, self.steps / self.horizon),
            float(self.read_globals["whoami"]),
            float(self.read_globals["list_approvers"]),
            float(self.last_error),
            float(self.inbox_pages.done),
        ]
        for k in range(self.slot_count):
            values += self._slot_features(self.slots[k] if k < len(self.slots) else None)
        return np.array(values, dtype=np.float32)

    def _slot_features(self, slot: Slot | None) -> list[float]:
        if slot is None:
            return [0.0] * SLOT_FEATURES
        seen = self.pos.get(slot.po_number or "")
        return [
            1.0,
            float(slot.record is not None),
            float(slot.doc is not None),
            float(slot.supplier_id in self.suppliers_read),
            float(self._listing(slot).done),
            float(seen is not None),
            float(seen is not None and seen.receipts.done),
            float(slot.record is not None and slot.doc is not None and capture_action(slot.record, slot.doc) is None),
            float(slot.decided),
        ]
