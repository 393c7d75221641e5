"""Running tool calls on a private copy of the v1 books, for the env, the solver, the task builder and the grader.

Everything executes through the same ``TOOLBOX``, so a gold path replays in the grader exactly as it ran when
it was generated, and as an agent's would. Writes run in a savepoint: a failed write leaves nothing behind.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any

from ...core import Outcome, Tool, ToolBox
from ..shared.episode import Books, fresh_books, savepoint
from .episode import V1Episode
from .tools import TOOLS


def atomic(ctx: Books, tool: Tool) -> AbstractContextManager[None]:
    return savepoint(ctx)


TOOLBOX = ToolBox(TOOLS, atomic)


def open_episode(
    template: bytes,
    actor_id: str,
    task_id: str = "",
    books: sqlite3.Connection | None = None,
    actor: dict[str, Any] | None = None,
) -> V1Episode:
    """A fresh private copy of the books acting as ``actor_id`` (``books``: a connection already holding a
    fresh copy under the episode's open transaction, the env's from ``restart_books``, else a new one;
    ``actor``: the approver's row as an earlier episode on the same template read it)."""
    episode = V1Episode(fresh_books(template, None) if books is None else books, {}, task_id)
    episode.acting(actor_id, actor)
    return episode


def call(episode: V1Episode, action: Any) -> Outcome:
    return TOOLBOX.execute(episode, action)


def replay(template: bytes, actor_id: str, actions: Iterable[Any]) -> V1Episode:
    episode = open_episode(template, actor_id)
    for action in actions:
        TOOLBOX.execute(episode, action)
    return episode
