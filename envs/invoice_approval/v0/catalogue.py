"""The fixed action catalogue of InvoiceApproval for discrete-action learners (``wrappers.DiscreteToolCalls``).

Index layout (``slots`` = S work-order slots, ``approvers`` = A approver places; defaults S=10, A=16, which
give K = 3 + S * (16 + A) = 323 entries):

    0                   finish
    1                   whoami
    2                   list_approvers
    3 + k*B + 0         read the invoice in work-order slot k              get_invoice
            + 1         read its supplier                                  get_supplier
            + 2         read its purchase order                            get_purchase_order
            + 3..7      list its supplier's invoices in status s           list_invoices (limit 200)
                        (received, approved, rejected, on_hold, escalated)
            + 8         approve it
            + 9..12     reject it: DUPLICATE, MISSING_PO, INVALID_PO, VAT_ERROR
            + 13..14    hold it: SUPPLIER_BLOCKED, PO_EXCEEDED
            + 15        escalate it to the approver rule 6 names (lowest sufficient limit, smallest ID)
            + 16 + j    escalate it to approver j (the company's approvers in ID order)

Slot k is the k-th invoice ID in the work order, in the order the work order lists them (processing order is
for the policy to find out). Supplier, PO and the escalation target of a slot are taken from its invoice as
``get_invoice`` returned it, so those entries are masked until the slot's invoice was read. The approver
list is the company's (``list_approvers``, read once at construction: it is static master data).

Masked: empty slots; reads already made (the books do not change under a read); decisions on a slot
already decided; escalations to the acting approver (the work order names them). Decisions are not masked
before a read: deciding blind is the policy's mistake to make. The tasks of the single tier have one invoice,
the batch tier at most 10; long and hard tasks need ``slots=23``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ...core.actions import FINISH, FINISH_ACTION, Action
from ...core.catalogue import UNKNOWN, Internal
from ..shared.catalogue import APPROVER_ID, Entry, SlotCatalogue, company_approvers
from ..shared.entities import ID_PATTERNS
from .sandbox import call, open_episode

if TYPE_CHECKING:
    from ..shared.env_base import InvoiceToolEnv

INVOICE_ID = ID_PATTERNS["invoice_id"]

LIST_STATUSES = ("received", "approved", "rejected", "on_hold", "escalated")
DECISIONS: tuple[tuple[str, str], ...] = (
    ("approve", ""),
    ("reject", "DUPLICATE"),
    ("reject", "MISSING_PO"),
    ("reject", "INVALID_PO"),
    ("reject", "VAT_ERROR"),
    ("hold", "SUPPLIER_BLOCKED"),
    ("hold", "PO_EXCEEDED"),
    ("escalate", "target"),
)
SLOT_FEATURES = 6
GLOBAL_FEATURES = 4


@dataclass
class Slot:
    """What the episode has shown about one work-order invoice."""

    invoice_id: str
    record: dict[str, Any] | None = None
    supplier_read: bool = False
    po_read: bool = False
    listed: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(LIST_STATUSES, False))
    decided: bool = False


def slot_entries(slot: int, approvers: int) -> list[Entry]:
    """The B = 16 + ``approvers`` entries of one slot, in index order."""
    entries = [Entry("read_invoice", slot), Entry("read_supplier", slot), Entry("read_po", slot)]
    entries += [Entry("list_supplier_invoices", slot, status) for status in LIST_STATUSES]
    entries += [Entry(verb, slot, arg) for verb, arg in DECISIONS]
    entries += [Entry("escalate_to", slot, str(j)) for j in range(approvers)]
    return entries


class InvoiceCatalogue(SlotCatalogue[Slot]):
    """The slot-based catalogue above, with the per-episode state that fills in its arguments."""

    def __init__(
        self, env: InvoiceToolEnv[Any], *, horizon: int | None = None, slots: int = 10, approvers: int = 16
    ) -> None:
        approvers_ = company_approvers(env.bundle.template, env.bundle.tasks, open_episode, call)
        self._lay_out(approvers_, approvers, ("whoami", "list_approvers"), slot_entries, slots)
        self.horizon = horizon if horizon is not None else env.max_turns  # scales the turn feature
        self.numeric_size = GLOBAL_FEATURES + SLOT_FEATURES * slots
        self.start("", {})

    # ------------------------------------------------------------------ episode state
    def start(self, observation: str, info: Mapping[str, Any]) -> None:
        ids = list(dict.fromkeys(INVOICE_ID.findall(observation)))
        self.slots = [Slot(iid) for iid in ids[: self.slot_count]]
        actor = APPROVER_ID.search(observation)
        self.actor = actor.group(0) if actor else ""
        self.steps = 0
        self.read_globals = {"whoami": False, "list_approvers": False}
        self.last_error = False

    # ------------------------------------------------------------------ meaning of an index
    def resolve(self, index: int) -> Action | Internal:
        entry = self.entries[index]
        if entry.slot < 0:
            return FINISH_ACTION if entry.verb == FINISH else {"name": entry.verb, "arguments": {}}
        slot = self._slot(entry)
        iid = slot.invoice_id if slot else UNKNOWN
        record = slot.record if slot and slot.record else {}
        if entry.verb == "read_invoice":
            return {"name": "get_invoice", "arguments": {"invoice_id": iid}}
        if entry.verb == "read_supplier":
            return {"name": "get_supplier", "arguments": {"supplier_id": record.get("supplier_id") or UNKNOWN}}
        if entry.verb == "read_po":
            return {"name": "get_purchase_order", "arguments": {"po_number": record.get("po_number") or UNKNOWN}}
        if entry.verb == "list_supplier_invoices":
            return {
                "name": "list_invoices",
                "arguments": {"status": entry.arg, "limit": 200, "supplier_id": record.get("supplier_id") or UNKNOWN},
            }
        return self._decision(entry, iid, record)

    def _decision(self, entry: Entry, iid: str, record: Mapping[str, Any]) -> Action:
        return self._decide(entry, iid, lambda: self._target(record))

    def _target(self, record: Mapping[str, Any]) -> str:
        return self._escalation(record.get("gross_cents"))

    def apply(self, internal: Internal) -> str:
        raise ValueError(f"the InvoiceApproval catalogue has no internal entries (got {internal})")

    # ------------------------------------------------------------------ learning from results
    def observe(self, index: int, observation: str, is_error: bool) -> None:
        self.steps += 1
        self.last_error = is_error
        if is_error:
            return
        entry = self.entries[index]
        if entry.verb in self.read_globals:
            self.read_globals[entry.verb] = True
            return
        slot = self._slot(entry)
        if slot is None:
            return
        if entry.verb == "read_invoice":
            slot.record = json.loads(observation)
        elif entry.verb in ("read_supplier", "read_po", "list_supplier_invoices"):
            self._mark_reads(entry, slot)
        else:
            slot.decided = True

    def _mark_reads(self, entry: Entry, read: Slot) -> None:
        """A supplier or PO read serves every slot with the same supplier or PO."""
        record = read.record or {}
        key = "po_number" if entry.verb == "read_po" else "supplier_id"
        for slot in self.slots:
            if slot.record is None or slot.record.get(key) != record.get(key):
                continue
            if entry.verb == "read_supplier":
                slot.supplier_read = True
            elif entry.verb == "read_po":
                slot.po_read = True
            else:
                slot.listed[entry.arg] = True

    # ------------------------------------------------------------------ masks and features
    def _allowed(self, entry: Entry) -> bool:
        if entry.slot < 0:
            return entry.verb == FINISH or not self.read_globals[entry.verb]
        slot = self._slot(entry)
        if slot is None:
            return False
        record = slot.record
        if entry.verb == "read_invoice":
            return record is None
        if entry.verb == "read_supplier":
            return record is not None and not slot.supplier_read
        if entry.verb == "read_po":
            return record is not None and record.get("po_number") is not None and not slot.po_read
        if entry.verb == "list_supplier_invoices":
            return record is not None and not slot.listed[entry.arg]
        if slot.decided:
            return False
        if entry.verb == "escalate":
            return record is not None and self._target(record) not in (UNKNOWN, self.actor)
        if entry.verb == "escalate_to":
            return self._approver(int(entry.arg)) not in (UNKNOWN, self.actor)
        return True

    def numeric(self) -> NDArray[np.float32]:
        values = [
            min(1.0, self.steps / self.horizon),
            float(self.read_globals["whoami"]),
            float(self.read_globals["list_approvers"]),
            float(self.last_error),
        ]
        for k in range(self.slot_count):
            slot = self.slots[k] if k < len(self.slots) else None
            values += _slot_features(slot)
        return np.array(values, dtype=np.float32)


def _slot_features(slot: Slot | None) -> list[float]:
    if slot is None:
        return [0.0] * SLOT_FEATURES
    listed = sum(slot.listed.values()) / len(LIST_STATUSES)
    return [
        1.0,
        float(slot.record is not None),
        float(slot.supplier_read),
        float(slot.po_read),
        listed,
        float(slot.decided),
    ]
