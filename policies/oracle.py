"""The oracle: plays the task's gold path, then ``finish``. It scores 1.0 on every task by construction, so it
checks the plumbing (env, grader, vector envs, eval harness) end to end."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .base import Action

FINISH: Action = {"name": "finish", "arguments": {}}


class OraclePolicy:
    """Replays ``gold_path(task_id)``; the domain supplies the gold paths."""

    name = "oracle"

    def __init__(self, gold_path: Callable[[str], Sequence[Action]]) -> None:
        self._gold_path = gold_path
        self._queue: list[Action] = []

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self._queue = list(self._gold_path(info["task_id"]))

    def act(self, observation: str) -> Action:
        return self._queue.pop(0) if self._queue else FINISH
