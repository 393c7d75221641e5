"""v2's work is v1's: the same task records (``assets/invoice_approval/v1/tasks.jsonl`` for the shipped company,
v1's task builder for a generated one), ids and gold paths. Every gold path replays through v2's tools to the
same books as through v1's (``tests/envs/invoice_approval/v2/test_tasks.py``): it reads every listing before
its first decision and captures only what documents print."""

from __future__ import annotations

from ..v1.tasks import TIERS, Task, task_from_dict, task_to_json

__all__ = ["TIERS", "Task", "task_from_dict", "task_to_json"]
