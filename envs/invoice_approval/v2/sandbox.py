"""Running tool calls on a private copy of the books with v2's tools, for the env, the solver and the grader.

v1's episode (``v1/sandbox.open_episode``) with v2's ``TOOLBOX``: a gold path replays in the grader through
the same tools an agent calls, so a gold step that v2 refused would show in the gold books (none does:
``tests/envs/invoice_approval/v2/test_tasks.py``). Writes run in a savepoint, as in v1.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...core import Outcome, ToolBox
from ..v1.episode import V1Episode
from ..v1.sandbox import atomic, open_episode
from .tools import TOOLS

TOOLBOX = ToolBox(TOOLS, atomic)

__all__ = ["TOOLBOX", "call", "open_episode", "replay"]


def call(episode: V1Episode, action: Any) -> Outcome:
    return TOOLBOX.execute(episode, action)


def replay(template: bytes, actor_id: str, actions: Iterable[Any]) -> V1Episode:
    episode = open_episode(template, actor_id)
    for action in actions:
        TOOLBOX.execute(episode, action)
    return episode
