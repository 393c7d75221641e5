"""What every version's policy code shares: a ruling on one invoice, rule 6's escalation target, the
Kleinbetrag limit, and the driver that runs a solver's coroutine of tool calls.

Each version's ``rules.py`` is its policy as code and its reference solver, built on these.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any

from ...core.actions import Action

KLEINBETRAG_LIMIT_CENTS = 25000
"""§ 33 UStDV: an invoice of at most EUR 250.00 gross (inclusive) is a Kleinbetragsrechnung and needs no PO."""
Caller = Callable[[Action], str]
Steps = Generator[Action, str, None]
"""A solver as a coroutine: it yields each tool call and is sent back the observation."""


@dataclass(frozen=True)
class Ruling:
    """The policy's ruling on one invoice: ``kind`` is approve/reject/hold/escalate; ``code`` is the reason
    code or approver ID."""

    invoice_id: str
    kind: str
    code: str | None = None

    @property
    def label(self) -> str:
        return self.kind if self.code is None else f"{self.kind}:{self.code}"

    def as_action(self) -> Action:
        args: dict[str, Any] = {"invoice_id": self.invoice_id}
        if self.kind in ("reject", "hold"):
            args["reason_code"] = self.code
        elif self.kind == "escalate":
            args["approver_id"] = self.code
        return {"name": f"{self.kind}_invoice", "arguments": args}


def escalation_target(approvers: Iterable[tuple[str, int | None]], gross_cents: int) -> str:
    """Rule 6's target: among (approver_id, limit) pairs whose limit covers the gross (None = unlimited),
    the lowest limit; ties go to the smallest approver ID."""
    qualified = [
        (1 << 62 if limit is None else limit, approver_id)
        for approver_id, limit in approvers
        if limit is None or limit >= gross_cents
    ]
    return min(qualified)[1]


def drive(steps: Steps, call: Caller) -> list[Action]:
    """Run a solver's steps (a generator that yields an action and is sent its observation) to the end, against
    ``call``, and return every action it took: the driver of every version's solver."""
    path: list[Action] = []
    try:
        action = next(steps)
        while True:
            path.append(action)
            action = steps.send(call(action))
    except StopIteration:
        return path
