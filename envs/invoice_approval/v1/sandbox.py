"""Running tool calls on a private copy of the v1 books, for the env, the solver, the task builder and the grader.

Everything executes through the same ``TOOLBOX``, so a gold path replays in the grader exactly as it ran when
it was generated, and as an agent's would. Writes run in a savepoint: a failed write leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from typing import Any

from ...core import Outcome, Tool, ToolBox, ToolError
from ..db import connect_bytes
from .episode import V1Episode
from .tools import TOOLS


@contextlib.contextmanager
def _savepoint(ctx: V1Episode) -> Iterator[None]:
    ctx.conn.execute("SAVEPOINT tool_call")
    try:
        yield
    except BaseException:
        ctx.conn.execute("ROLLBACK TO tool_call")
        ctx.conn.execute("RELEASE tool_call")
        raise
    ctx.conn.execute("RELEASE tool_call")


def atomic(ctx: V1Episode, tool: Tool) -> AbstractContextManager[None]:
    return _savepoint(ctx)


TOOLBOX = ToolBox(TOOLS, atomic)


def open_episode(
    template: bytes, actor_id: str, task_id: str = "", reuse: sqlite3.Connection | None = None
) -> V1Episode:
    """A fresh private copy of the books acting as ``actor_id`` (``reuse``: a connection to overwrite)."""
    if reuse is not None:
        reuse.deserialize(template)
        conn = reuse
    else:
        conn = connect_bytes(template)
    episode = V1Episode(conn, {}, task_id)
    actor = episode.one("SELECT approver_id, name, role, limit_cents FROM approvers WHERE approver_id = ?", (actor_id,))
    if actor is None:
        conn.close()
        raise ToolError(f"acting approver '{actor_id}' does not exist in this company")
    episode.actor = actor
    return episode


def call(episode: V1Episode, action: Any) -> Outcome:
    return TOOLBOX.execute(episode, action)


def replay(template: bytes, actor_id: str, actions: Iterable[Any]) -> V1Episode:
    episode = open_episode(template, actor_id)
    for action in actions:
        TOOLBOX.execute(episode, action)
    return episode
