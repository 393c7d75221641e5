"""v0's work: the shared task record (``shared/tasks.py``: what one work order asks, its gold and wrong paths,
its JSONL form) and v0's tiers. The records load with the company in ``bundle.py`` from
``assets/invoice_approval/v0/tasks.jsonl``; how they are made is offline work (``authoring/task_builder.py``).
"""

from __future__ import annotations

from ..shared.tasks import TIERS, Task, task_from_dict, task_to_json

__all__ = ["TIERS", "Task", "task_from_dict", "task_to_json"]
