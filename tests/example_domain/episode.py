"""One petty-cash episode: the task and the receipts' statuses as they stand (the only state that changes)."""

from __future__ import annotations

from dataclasses import dataclass

from .tasks import Task


@dataclass
class PettyCashEpisode:
    """What the tools receive: a private copy of the statuses per episode (the task itself is immutable)."""

    task: Task
    status: dict[str, str]
    closed_note: str | None = None

    def paid(self) -> set[str]:
        """Receipts reimbursed during this episode (not those reimbursed before it began)."""
        before = {r.id: r.status for r in self.task.receipts}
        return {rid for rid, status in self.status.items() if status == "reimbursed" and before[rid] != status}
