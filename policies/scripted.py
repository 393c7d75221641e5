"""Scripted policies that play a precomputed path per task, then ``finish``.

The oracle plays the task's gold path and scores 1.0 on every task by construction, so it checks the
plumbing (env, grader, vector envs, eval harness) end to end. Domain baselines that are fixed paths per task
(``envs/<domain>/baselines.py``) are scripted the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..envs.core.actions import FINISH_ACTION, Action


class ScriptedPolicy:
    """Plays ``script(task_id)`` step by step, then ``finish`` (if the episode is still running)."""

    def __init__(self, name: str, script: Callable[[str], Sequence[Action]]) -> None:
        self.name = name
        self._script = script
        self._queue: list[Action] = []

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self._queue = list(self._script(info["task_id"]))

    def act(self, observation: str) -> Action:
        return self._queue.pop(0) if self._queue else FINISH_ACTION


def OraclePolicy(gold_path: Callable[[str], Sequence[Action]]) -> ScriptedPolicy:
    """The oracle: the task's gold path."""
    return ScriptedPolicy("oracle", gold_path)
