"""The floor of ``officegym serve``: a tool env whose one tool does nothing, served by the same app.

The OpenEnv app speaks the tool-call contract of ``ToolEnv`` (``integrations/openenv_session.make_env`` refuses
anything else), so the floor is a ``ToolEnv`` too: one task, one tool ``noop`` that answers ``"ok"``, a grade
of 0. Its step still passes officegym's dispatch (parsing the call, checking its arguments); what it leaves out
is every domain's work: the database, the documents, the grading. Served as
``benchmarks.noop_tool_env:officegym-bench/NoopTool-v0`` (the module is imported by the id, in every worker).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym

from officegym.envs.core import Action, Grade, Tool, ToolEnv, tool

ENV_ID = "officegym-bench/NoopTool-v0"


@tool()
def noop(ctx: dict[str, Any]) -> str:
    """Do nothing; answers "ok"."""
    return "ok"


class NoopToolEnv(ToolEnv[dict[str, Any]]):
    """One task, ``noop``, whose every step does nothing."""

    TOOLS: ClassVar[tuple[Tool, ...]] = (noop,)
    TIERS: ClassVar[tuple[str, ...]] = ("noop",)

    def __init__(self, max_turns: int = 1_000_000, render_mode: str | None = None) -> None:
        super().__init__(max_turns=max_turns, render_mode=render_mode)

    def _task_ids(self) -> Sequence[str]:
        return ("noop",)

    def _start_episode(self, task_id: str) -> tuple[dict[str, Any], str, dict[str, Any]]:
        return {}, "ready", {}

    def _grade_episode(self, ctx: dict[str, Any]) -> Grade:
        return Grade(0.0, {"done": 0.0})

    def task_tier(self, task_id: str) -> str:
        return "noop"

    def system_prompt(self) -> str:
        return "Call noop."

    def gold_actions(self, task_id: str) -> list[Action]:
        return [{"name": "noop", "arguments": {}}]


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="benchmarks.noop_tool_env:NoopToolEnv")
