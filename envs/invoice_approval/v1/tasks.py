"""v1's work: the shared task record (``shared/tasks.py``) and the tiers v1 shares with v0. The records load
with the company in ``bundle.py`` from ``assets/invoice_approval/v1/tasks.jsonl``; how they are made is offline
work (``authoring/task_builder.py``).
"""

from __future__ import annotations

from ..shared.tasks import TIERS, Task, task_from_dict, task_to_json

__all__ = ["TIERS", "Task", "task_from_dict", "task_to_json"]
