"""The tasks of a company in every version: what one work order asks, its gold path and its wrong paths, and
their JSONL form.

Each version loads its records at run time (its ``bundle.py``); how they are made is offline work (its
``authoring/task_builder.py``). The shipped files are ``assets/invoice_approval/<version>/tasks.jsonl``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ...core.actions import Action

TIERS = ("single", "batch", "long", "hard")


@dataclass
class Task:
    id: str
    tier: str
    actor: str
    scope: list[str]
    work_order: str
    gold_actions: list[Action]
    wrong_actions: list[dict[str, Any]] = field(default_factory=list)
    seed_fingerprint: str = ""


def task_to_json(task: Task) -> str:
    return json.dumps(asdict(task), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def task_from_dict(data: dict[str, Any]) -> Task:
    return Task(**data)
