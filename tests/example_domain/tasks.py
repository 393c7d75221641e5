"""The petty-cash tasks, read from ``tasks.json``: a domain's data lives in a data file, not in Python strings."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

TIERS: tuple[str, ...] = ("easy", "hard")  # easy: the request names the receipts; hard: the clerk looks them up
EMPLOYEE_ID = re.compile(r"\bE-\d{2}\b")
RECEIPT_ID = re.compile(r"\bPC-\d{3}\b")


@dataclass(frozen=True)
class Receipt:
    """A receipt as filed. Episodes copy its ``status`` (the only thing that changes) and never edit this."""

    id: str
    employee_id: str
    category: str
    amount_eur: str  # exact decimal text, as the tool shows it
    status: str


@dataclass(frozen=True)
class Task:
    """A request, the receipts in the drawer, and the receipts the grade expects reimbursed."""

    id: str
    tier: str
    request: str
    receipts: tuple[Receipt, ...]
    reimburse: frozenset[str]


@cache
def data() -> dict[str, Any]:
    """The whole file: ``policy`` (the system prompt), ``employees`` (ID -> name) and ``tasks``."""
    loaded: dict[str, Any] = json.loads((Path(__file__).parent / "tasks.json").read_text(encoding="utf-8"))
    return loaded


@cache
def load_tasks() -> dict[str, Task]:
    """Every task by ID, in file order (cached: tasks are immutable)."""
    return {
        t["id"]: Task(
            t["id"], t["tier"], t["request"], tuple(Receipt(**r) for r in t["receipts"]), frozenset(t["reimburse"])
        )
        for t in data()["tasks"]
    }


def opening_message(task: Task) -> str:
    """The request, then the staff list: every ID an agent needs is in what it has seen."""
    staff = "\n".join(f"- {eid}: {name}" for eid, name in data()["employees"].items())
    return f"{task.request}\n\nStaff:\n{staff}"
