"""v1's task records in v2's currency: the same tasks and gold paths, with each page cursor v2's own.

A gold path is a fixed list of tool calls, and v1's paths carry v1's cursors (``a4f0c1e2b3d9.a``), which v2
refuses: they hold no digest of the listing (``paging.py``). Everything else in a v1 gold path is valid in v2
(its captures copy what documents print). So a v2 task is the v1 task with every cursor of a listing call
replaced by v2's cursor for the same page of the same listing, as the books stand at that step. Every v1 gold
path reads its listings before its first write, so the books at a cursor step are the template's, and one read
of the template serves the whole company (milliseconds); a path with a cursor after a write is replayed
through v2's tools up to each such step instead. A cursor that is not v1's is left as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ...core import ToolError
from ...core.actions import Action
from ..v1.episode import V1Episode
from ..v1.paging import read_cursor
from ..v1.sandbox import open_episode
from ..v1.tasks import Task
from .paging import Listing
from .sandbox import TOOLBOX, call
from .tools import invoice_listing, receipt_listing

WRITES = frozenset(tool.name for tool in TOOLBOX.tools.values() if tool.writes)


def v2_tasks(template: bytes, tasks: Iterable[Task]) -> dict[str, Task]:
    """The tasks by id, each with its gold path in v2's cursors (unchanged tasks are the same objects)."""
    found = list(tasks)
    if not found:
        return {}
    books = open_episode(template, found[0].actor)
    try:
        return {task.id: _v2_task(task, template, books) for task in found}
    finally:
        books.conn.close()


def _v2_task(task: Task, template: bytes, books: V1Episode) -> Task:
    if not any(_cursor(action) for action in task.gold_actions):
        return task
    return replace(task, gold_actions=gold_path(task.gold_actions, template, task.actor, books))


def gold_path(actions: Sequence[Action], template: bytes, actor: str, books: V1Episode) -> list[Action]:
    """``actions`` with v2's cursors: read from ``books`` (the template) up to the first write, then from a
    replay of the path through v2's tools when a cursor comes later."""
    first_write = next((n for n, action in enumerate(actions) if action.get("name") in WRITES), len(actions))
    out = [_translated(action, books) for action in actions[:first_write]]
    rest = actions[first_write:]
    if not any(_cursor(action) for action in rest):
        return out + list(rest)
    live = open_episode(template, actor)
    try:
        for action in out:
            call(live, action)
        for action in rest:
            out.append(_translated(action, live))
            call(live, out[-1])
    finally:
        live.conn.close()
    return out


def _cursor(action: Action) -> str:
    arguments = action.get("arguments")
    cursor = arguments.get("cursor") if isinstance(arguments, dict) else None
    return cursor if isinstance(cursor, str) else ""


def _translated(action: Action, books: V1Episode) -> Action:
    """The action with its v1 cursor replaced by v2's for the same page of the listing as ``books`` hold it."""
    cursor = _cursor(action)
    if not cursor:
        return action
    arguments: dict[str, Any] = dict(action["arguments"])
    try:
        now = _listing(action["name"], arguments, books)
        if now is None:
            return action
        offset = read_cursor(now.scope, cursor)
        if offset > now.total:  # v1 refused this one too
            return action
        arguments["cursor"] = now.cursor(offset)
    except ToolError:  # not a v1 cursor of this listing, or a listing v2 refuses: left for v2 to answer
        return action
    return {**action, "arguments": arguments}


def _listing(name: str, arguments: dict[str, Any], books: V1Episode) -> Listing | None:
    if name == "list_invoices":
        filters = [str(arguments.get(key, "")) for key in ("status", "supplier_id", "inbox")]
        return invoice_listing(books, *filters)[0]
    if name == "list_goods_receipts":
        return receipt_listing(books, str(arguments.get("po_number", "")))
    return None
