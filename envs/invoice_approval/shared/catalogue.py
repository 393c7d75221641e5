"""What the slot catalogues of every InvoiceApproval version share (``wrappers.DiscreteToolCalls``): an entry,
the company's approvers read through the version's own sandbox, and ``SlotCatalogue``, the layout (finish,
global reads, then the same block per work-order slot), approver places, the escalation target and the decision
actions. Each version's ``catalogue.py`` says what a slot has seen and what its entries mean.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from ...core.actions import FINISH, Action
from ...core.catalogue import UNKNOWN
from ...core.toolbox import Outcome
from .episode import Books
from .rules import escalation_target

if TYPE_CHECKING:
    from .tasks import Task

APPROVER_ID = re.compile(r"AP-\d+")
S = TypeVar("S")  # what a version records about one work-order slot
B = TypeVar("B", bound=Books)


@dataclass(frozen=True)
class Entry:
    """One catalogue entry: ``verb`` on work-order ``slot`` (-1 for global entries) with ``arg``."""

    verb: str
    slot: int = -1
    arg: str = ""

    @property
    def label(self) -> str:
        what = f"{self.verb} {self.arg}".strip()
        return what if self.slot < 0 else f"slot {self.slot}: {what}"


def company_approvers(
    template: bytes,
    tasks: Mapping[str, Task],
    opener: Callable[[bytes, str], B],
    caller: Callable[[B, Action], Outcome],
) -> list[tuple[str, int | None]]:
    """(approver ID, limit in cents or None) of a company in ID order, read through ``list_approvers`` with the
    version's own sandbox (``opener``: its ``open_episode``, ``caller``: its ``call``), as the first task's actor
    (any approver may list them)."""
    episode = opener(template, next(iter(tasks.values())).actor)
    rows = json.loads(caller(episode, {"name": "list_approvers", "arguments": {}}).observation)["approvers"]
    episode.conn.close()
    return sorted(((row["approver_id"], row["limit_cents"]) for row in rows), key=lambda pair: pair[0])


class SlotCatalogue(Generic[S]):
    """What the slot catalogues of every version share: the entry list (finish, global reads, then the same
    block per work-order slot), approver places, the escalation target and the decision actions. Each version
    says what a slot has seen and what its entries mean (``resolve``, ``observe``, ``_allowed``)."""

    approvers: list[tuple[str, int | None]]
    entries: list[Entry]
    slots: list[S]

    def _lay_out(
        self,
        approvers: list[tuple[str, int | None]],
        places: int,
        global_verbs: Sequence[str],
        slot_entries: Callable[[int, int], list[Entry]],
        slots: int,
    ) -> None:
        """The company's ``approvers`` (at most ``places``), then every entry in index order and its label."""
        if len(approvers) > places:
            raise ValueError(f"the company has {len(approvers)} approvers; use approvers >= that")
        self.approvers = approvers
        self.entries = [Entry(FINISH), *(Entry(verb) for verb in global_verbs)]
        for slot in range(slots):
            self.entries += slot_entries(slot, places)
        self.labels = tuple(e.label for e in self.entries)
        self.slot_count = slots

    def _slot(self, entry: Entry) -> S | None:
        return self.slots[entry.slot] if 0 <= entry.slot < len(self.slots) else None

    def _escalation(self, gross: object) -> str:
        """The approver the policy's escalation rule names for ``gross`` (UNKNOWN before it is known)."""
        if not isinstance(gross, int) or not any(limit is None or limit >= gross for _, limit in self.approvers):
            return UNKNOWN
        return escalation_target(self.approvers, gross)

    def _approver(self, j: int) -> str:
        return self.approvers[j][0] if j < len(self.approvers) else UNKNOWN

    def _decide(self, entry: Entry, iid: str, target: Callable[[], str]) -> Action:
        """The decision ``entry`` on invoice ``iid``; ``target`` gives the rule's escalation target."""
        if entry.verb == "approve":
            return {"name": "approve_invoice", "arguments": {"invoice_id": iid}}
        if entry.verb in ("reject", "hold"):
            return {"name": f"{entry.verb}_invoice", "arguments": {"invoice_id": iid, "reason_code": entry.arg}}
        approver = target() if entry.verb == "escalate" else self._approver(int(entry.arg))
        return {"name": "escalate_invoice", "arguments": {"invoice_id": iid, "approver_id": approver}}

    def mask(self) -> NDArray[np.bool_]:
        return np.array([self._allowed(e) for e in self.entries], dtype=bool)

    def _allowed(self, entry: Entry) -> bool:
        raise NotImplementedError
