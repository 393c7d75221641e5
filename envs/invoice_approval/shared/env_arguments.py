"""The constructor arguments of every InvoiceApproval version, checked the same way and in the same order.

Both versions take the same arguments with the same meaning (a company by seed and scale, its tasks, a
selection of them and a turn limit); only their defaults and examples differ, and those stay in each env.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ...core import arguments
from ...core.selection import select_task_ids
from .tasks import TIERS, Task

ACCEPTED: Final = ("task_ids", "tier", "max_turns", "render_mode", "company_seed", "tasks_path", "company_scale")


@dataclass(frozen=True)
class CompanyArguments:
    """The checked arguments that choose the company and bound an episode."""

    max_turns: int
    company_seed: int
    company_scale: int
    tasks_path: str | None


def check_arguments(
    env_name: str,
    unknown: Collection[str],
    *,
    max_turns: Any,
    company_seed: Any,
    company_scale: Any,
    tasks_path: Any,
    canonical_seed: int,
) -> CompanyArguments:
    """Refuse unknown keywords, then check each argument (errors name the fix); ``tasks_path`` must be a
    readable text file."""
    arguments.unknown_arguments(env_name, unknown, ACCEPTED)
    max_turns = arguments.max_turns(max_turns)
    company_seed = arguments.whole_number(
        "company_seed", company_seed, minimum=0, maximum=arguments.SEED_LIMIT - 1, example=canonical_seed
    )
    company_scale = arguments.whole_number("company_scale", company_scale, minimum=1, maximum=100, example=10)
    if tasks_path is not None:
        tasks_path = str(arguments.text_file("tasks_path", tasks_path, "a tasks .jsonl file made for this company"))
    return CompanyArguments(max_turns, company_seed, company_scale, tasks_path)


def select_tasks(tasks: Mapping[str, Task], task_ids: Any, tier: Any, example: str, max_turns: int) -> list[str]:
    """The selected task IDs (``core.selection``), refused when ``max_turns`` is below the longest gold path
    among them: such an episode could not be solved before truncation."""
    tiers = {task_id: task.tier for task_id, task in tasks.items()}
    selected = select_task_ids(tiers, task_ids, tier, TIERS, "task", example)
    longest = max(selected, key=lambda t: len(tasks[t].gold_actions))
    need = len(tasks[longest].gold_actions)
    if max_turns < need:
        raise arguments.ArgumentError(
            f"max_turns={max_turns} is below the gold path of task {longest!r} ({need} steps); "
            f"use max_turns >= {need} or select other tasks"
        )
    return selected
