"""Running actions on a private copy of the books, outside any env: for the solver, tasks and grader.

The env, the task generator and the grader all execute tool calls through the same ``TOOLBOX``, so a gold
path replays in the grader exactly as it ran when it was generated, and exactly as an agent's would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any

from ...core import Outcome, Tool, ToolBox
from ..shared.episode import Books, fresh_books, savepoint
from .episode import InvoiceEpisode
from .read_model import RecordView, Snapshot, snapshot
from .tools import TOOLS


def atomic(ctx: Books, tool: Tool) -> AbstractContextManager[None]:
    """Writes run inside a savepoint: a tool that fails half-way leaves the books exactly as they were. (The
    toolbox calls this only for tools that write; reads need nothing undone.)"""
    return savepoint(ctx)


TOOLBOX = ToolBox(TOOLS, atomic)


def open_episode(
    template: bytes,
    actor_id: str,
    task_id: str = "",
    books: sqlite3.Connection | None = None,
    records: Snapshot | None = None,
    actor: dict[str, Any] | None = None,
) -> InvoiceEpisode:
    """A fresh private copy of the books with ``actor_id`` as the acting approver.

    ``books`` is a connection that already holds a fresh copy of ``template`` under the episode's open
    transaction (the env's, from ``episode.restart_books``); without it, a new connection in autocommit mode.
    ``records`` is the template's snapshot when the caller holds it (the bundle does): looking it up by the
    template's bytes can cost a comparison of the whole template. ``actor`` is ``actor_id``'s row as an earlier
    episode on the same template read it (``act_as``), which a reset need not read again."""
    conn = fresh_books(template, None) if books is None else books
    episode = InvoiceEpisode(conn, {}, task_id, RecordView(conn, snapshot(template) if records is None else records))
    episode.acting(actor_id, actor)
    return episode


def call(episode: InvoiceEpisode, action: Any) -> Outcome:
    return TOOLBOX.execute(episode, action)


def replay(template: bytes, actor_id: str, actions: Iterable[Any]) -> InvoiceEpisode:
    """Execute ``actions`` in order on a fresh copy and return the episode (its connection still open)."""
    episode = open_episode(template, actor_id)
    for action in actions:
        TOOLBOX.execute(episode, action)
    return episode
