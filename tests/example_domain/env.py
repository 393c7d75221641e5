"""``officegym-example/PettyCash-v0``: the smallest complete domain, a template and the contract suite's control.

A clerk lists employees' receipts and reimburses the eligible ones (submitted, at most 100 EUR); reward 1.0 iff
exactly the right receipts end up reimbursed. Every member of the domain contract (``envs/core/tool_env.py``) is
implemented, so the contract tests exercise each of them on a domain that is not shipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from officegym.envs.core import Action, Grade, Tool, ToolEnv
from officegym.envs.core.catalogue import Catalogue
from officegym.envs.core.demo import Demo
from officegym.envs.core.selection import select_task_ids
from officegym.envs.core.tool_env import PolicyFactory

from .catalogue import PettyCashCatalogue
from .episode import PettyCashEpisode
from .grading import failure_report, grade_episode, potential, progress
from .tasks import EMPLOYEE_ID, RECEIPT_ID, TIERS, load_tasks, opening_message
from .tasks import data as task_file
from .tools import TOOLS

if TYPE_CHECKING:
    from officegym.policies.base import Policy


def path(task_id: str, *, greedy: bool = False) -> list[Action]:
    """List the receipts of each employee the request names, reimburse, close. The gold path pays the task's
    answer; the greedy baseline forgets the 100 EUR limit and pays every submitted receipt."""
    task = load_tasks()[task_id]
    pay = [r.id for r in task.receipts if r.status == "submitted"] if greedy else sorted(task.reimburse)
    reads = [{"name": "list_receipts", "arguments": {"employee_id": e}} for e in EMPLOYEE_ID.findall(task.request)]
    pays = [{"name": "mark_reimbursed", "arguments": {"receipt_id": r}} for r in pay]
    return [*reads, *pays, {"name": "close_request", "arguments": {"note": f"Paid {', '.join(pay) or 'nothing'}."}}]


def _greedy(env: Any, seed: int) -> Policy:
    from officegym.policies import ScriptedPolicy  # lazily: the policies package imports the env core

    return ScriptedPolicy("greedy", lambda task_id: path(task_id, greedy=True))


class PettyCashEnv(ToolEnv[PettyCashEpisode]):
    """Arguments: ``task_ids``, ``tier`` (``"easy"``, ``"hard"``), ``max_turns`` (default 12), ``render_mode``."""

    TOOLS: ClassVar[tuple[Tool, ...]] = TOOLS
    TIERS: ClassVar[tuple[str, ...]] = TIERS
    DEMO: ClassVar[Demo] = Demo("pc-hard-01", ("oracle", "greedy", "random"))
    ID_PATTERNS: ClassVar[Mapping[str, re.Pattern[str]]] = {"employee_id": EMPLOYEE_ID, "receipt_id": RECEIPT_ID}

    def __init__(
        self,
        task_ids: Sequence[str] | None = None,
        tier: str | None = None,
        max_turns: int = 12,
        render_mode: str | None = None,
    ) -> None:
        tiers = {t.id: t.tier for t in load_tasks().values()}
        self._selected = select_task_ids(tiers, task_ids, tier, TIERS, "task", "'pc-easy-01'")
        super().__init__(max_turns=max_turns, render_mode=render_mode)

    def _task_ids(self) -> Sequence[str]:
        return self._selected

    def _start_episode(self, task_id: str) -> tuple[PettyCashEpisode, str, dict[str, Any]]:
        task = load_tasks()[task_id]
        return (
            PettyCashEpisode(task, {r.id: r.status for r in task.receipts}),
            opening_message(task),
            {"tier": task.tier},
        )

    def _save_episode(self, ctx: PettyCashEpisode) -> dict[str, Any]:
        return {"task_id": ctx.task.id, "status": dict(ctx.status), "closed_note": ctx.closed_note}

    def _load_episode(self, state: dict[str, Any]) -> PettyCashEpisode:
        return PettyCashEpisode(load_tasks()[state["task_id"]], dict(state["status"]), state["closed_note"])

    def _grade_episode(self, ctx: PettyCashEpisode) -> Grade:
        return grade_episode(ctx, self.stats)

    def task_tier(self, task_id: str) -> str:
        return load_tasks()[task_id].tier

    def system_prompt(self) -> str:
        return str(task_file()["policy"])

    def gold_actions(self, task_id: str) -> list[Action]:
        return path(task_id)

    @classmethod
    def scripted_policies(cls) -> Mapping[str, PolicyFactory]:
        return {"greedy": _greedy}

    def progress(self) -> dict[str, float]:
        if self._ctx is None:
            raise RuntimeError("progress() needs an episode: call reset() first")
        return progress(self._ctx, self.stats)

    def failure_report(self) -> list[dict[str, Any]]:
        if self._ctx is None:
            raise RuntimeError("failure_report() needs an episode: call reset() first")
        return failure_report(self._ctx)

    def shaping_potential(self, measures: Mapping[str, float]) -> float:
        return potential(measures)

    def action_catalogue(self, horizon: int) -> Catalogue:
        return PettyCashCatalogue(horizon=horizon)
