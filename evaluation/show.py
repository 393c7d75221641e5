"""``officegym show``: stored episodes in the terminal, as a list or one transcript at a time.

The list gives one row per episode (reward, why it stopped, turns, parse errors, tokens, infrastructure
errors) and the run summary; ``--tier`` narrows both to one tier, ``--failed`` the list to the episodes that
did not pass (infrastructure errors included). Rows keep their number in the file, which is what
``--episode K`` takes: it draws the transcript as the model lived it: the system prompt (clipped unless
``full``), the work order, each assistant turn with its reasoning, prose and tool calls, each tool result
(errors in red), and the grade with every diagnostic; an infrastructure error shows its transcript so far.
Several files give one summary row each, side by side. Error texts are shown through ``redact_text``, so a
file written before secrets were redacted does not print a key quoted in an error.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import gymnasium as gym
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..envs.core.rendering import print_grade
from ..policies.chat import redact_text
from .failures import as_rows
from .failures_table import failures_view
from .summary import comparison_table, summarize, summary_table

CLIP = 1500
SYSTEM_CLIP = 400


def select_records(records: list[dict[str, Any]], episode: str | None) -> list[dict[str, Any]]:
    """All records, or the one named by ``episode``: its index in the list, its key (``task#rollout``), or a
    task id (its first rollout)."""
    if episode is None:
        return records
    if episode.isdigit():
        index = int(episode)
        if index >= len(records):
            raise ValueError(
                f"--episode {index} is out of range: the file has {len(records)} episode(s), "
                f"numbered 0 to {len(records) - 1}"
            )
        return [records[index]]
    for record in records:
        if episode in (record.get("key"), record.get("task_id")):
            return [record]
    keys = ", ".join(str(r.get("key")) for r in records[:5])
    raise ValueError(f"no episode {episode!r} in the file; give an index, a key ({keys}, ...) or a task id")


def filter_records(
    records: list[dict[str, Any]], *, tier: str | None = None, failed: bool = False, threshold: float = 1.0
) -> list[tuple[int, dict[str, Any]]]:
    """The records of ``tier`` (all if ``None``), only those that did not pass if ``failed``, each with its
    number in the file (what ``--episode`` takes)."""
    return [
        (index, record)
        for index, record in enumerate(records)
        if (tier is None or record.get("tier") == tier) and not (failed and _passed(record, threshold))
    ]


def _passed(record: dict[str, Any], threshold: float) -> bool:
    return not record.get("has_error") and float(record.get("reward") or 0.0) >= threshold


LIST_COLUMNS = ("#", "key", "tier", "reward", "stop", "turns", "parse errors", "tokens", "error")
KEPT_COLUMNS = frozenset({"#", "key", "reward"})  # shown even when every row has 0 or nothing there
NUMBERS = frozenset({"#", "reward", "turns", "parse errors", "tokens"})
BLANK = frozenset({"", "-", "0", "None"})
NARROW_DROPS = ("tier", "turns", "parse errors", "tokens", "stop")  # least useful first (the summary has tiers)
ERROR_WIDTH = 24  # the error column wraps, but not narrower than this


def episode_list(rows: list[tuple[int, dict[str, Any]]], title: str = "episodes", width: int = 200) -> Table:
    """One row per episode in task order (``ordered``); a column that is 0 or empty on every row (tokens and
    parse errors of a scripted policy, errors of a clean run) says nothing and is left out, and so are the
    least useful ones (``NARROW_DROPS``) while the rest would not fit ``width`` (the caption names them)."""
    cells = [_list_cells(index, record) for index, record in ordered(rows)]
    informative = [c for c in LIST_COLUMNS if c in KEPT_COLUMNS or any(row[c] not in BLANK for row in cells)]
    shown = _fitting(informative, cells, width)
    dropped = [c for c in informative if c not in shown]
    caption = f"left out at {width} columns: {', '.join(dropped)}" if dropped else None
    table = Table(title=title, caption=caption, min_width=len(title) + 4)  # a narrow list keeps its title whole
    for column in shown:
        table.add_column(
            column,
            justify="right" if column in NUMBERS else "left",
            no_wrap=column != "error",
            overflow="fold" if column == "error" else "ellipsis",
        )
    for row in cells:
        table.add_row(*(row[column] for column in shown))
    return table


def _fitting(columns: list[str], cells: list[dict[str, str]], width: int) -> list[str]:
    """``columns`` less the first of ``NARROW_DROPS`` while the table would be wider than ``width`` (every
    column as wide as its widest cell, the error column wrapped to at least ``ERROR_WIDTH``)."""
    shown = list(columns)
    for column in (None, *NARROW_DROPS):
        if column in shown:
            shown.remove(column)
        if _list_width(shown, cells) <= width:
            break
    return shown


def _list_width(columns: list[str], cells: list[dict[str, str]]) -> int:
    widths = [max([len(column), *(len(row[column]) for row in cells)]) for column in columns]
    return 1 + sum(3 + (min(w, ERROR_WIDTH) if c == "error" else w) for c, w in zip(columns, widths, strict=True))


def _list_cells(index: int, record: dict[str, Any]) -> dict[str, str]:
    usage = record.get("usage") or {}
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    reward = record.get("reward")
    return {
        "#": str(index),
        "key": str(record.get("key")),
        "tier": str(record.get("tier") or "-"),
        "reward": "-" if reward is None else f"{reward:.3f}",
        "stop": str(record.get("stop_reason")),
        "turns": str(record.get("turns", "-")),
        "parse errors": str((record.get("chat") or {}).get("parse_errors", "-")),
        "tokens": f"{tokens:,}",
        "error": redact_text(record.get("error") or "")[:60],
    }


def ordered(rows: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """The rows in the env's task order, then by rollout (the file holds them in completion order, which
    concurrency shuffles); tasks the env does not list (or an env that cannot be made) follow in file order."""
    order: dict[tuple[str, str], int] = {}
    for env_id, kwargs in sorted({(str(r.get("env_id")), _kwargs_key(r)) for _, r in rows}):
        for place, task_id in enumerate(env_task_ids(env_id, kwargs)):
            order.setdefault((env_id, task_id), place)

    def key(item: tuple[int, dict[str, Any]]) -> tuple[int, int, int, int]:
        index, record = item
        place = order.get((str(record.get("env_id")), str(record.get("task_id"))))
        return (0, place, int(record.get("rollout") or 0), index) if place is not None else (1, 0, 0, index)

    return sorted(rows, key=key)


@cache
def env_task_ids(env_id: str, kwargs: str) -> tuple[str, ...]:
    """The task order of ``env_id`` made with the recorded arguments (JSON); empty when it cannot be made here
    (an env id this install does not register, arguments it refuses): the list then keeps file order."""
    try:
        env = gym.make(env_id, **json.loads(kwargs))
    except (gym.error.Error, TypeError, ValueError, KeyError, OSError):
        return ()
    try:
        return tuple(str(task_id) for task_id in getattr(env.unwrapped, "task_ids", ()))
    finally:
        env.close()


def _kwargs_key(record: dict[str, Any]) -> str:
    kwargs = record.get("env_kwargs")
    return json.dumps(kwargs if isinstance(kwargs, dict) else {}, sort_keys=True)


def show_list(
    console: Console,
    records: list[dict[str, Any]],
    threshold: float = 1.0,
    *,
    tier: str | None = None,
    failed: bool = False,
    source: str | None = None,
) -> None:
    """The episodes (of ``tier``; only those that did not pass if ``failed``), then the summary of ``tier``;
    with ``source`` (one of several files) the list alone, titled with it."""
    rows = filter_records(records, tier=tier, failed=failed, threshold=threshold)
    scope = " · ".join(part for part in (tier, source) if part)
    title = "episodes that did not pass" if failed else "episodes"
    console.print(episode_list(rows, f"{title} ({scope})" if scope else title, console.width))
    if source is None:
        chosen = [record for _, record in filter_records(records, tier=tier)]
        console.print(summary_table(summarize(chosen, threshold), f"summary ({tier})" if tier else "summary"))


def show_side_by_side(
    console: Console, files: list[tuple[str, list[dict[str, Any]]]], threshold: float = 1.0, *, tier: str | None = None
) -> None:
    """One summary row per results file (of ``tier`` if given), named by file name when those differ."""
    names = [Path(name).name for name, _ in files]
    if len(set(names)) < len(names):
        names = [name for name, _ in files]
    summaries = [
        (name, summarize([r for _, r in filter_records(records, tier=tier)], threshold))
        for name, (_, records) in zip(names, files, strict=True)
    ]
    console.print(comparison_table(summaries, f"side by side ({tier})" if tier else "side by side"))


def show_episode(console: Console, record: dict[str, Any], *, full: bool = False) -> None:
    """One stored episode, message by message, then its grade; an infrastructure error, then what the model
    did before it (never scored)."""
    console.print(_header(record))
    if record.get("has_error"):
        error = redact_text(str(record.get("error")))
        console.print(Panel(Text(error), title="infrastructure error (not scored)", border_style="red"))
    for message in record.get("messages", []):
        console.print(_message_panel(message, full))
    if not record.get("has_error"):
        print_grade(console, record.get("grade", {}))
        failures = as_rows(record.get("failures"))
        if failures:
            console.print(failures_view(failures, console.width))


def _header(record: dict[str, Any]) -> Panel:
    usage = record.get("usage") or {}
    timing = record.get("timing") or {}
    lines = [
        f"{record.get('env_id')} · task {record.get('task_id')} ({record.get('tier')}) · rollout "
        f"{record.get('rollout')} · seed {record.get('seed')}",
        f"policy {record.get('policy')} · model {record.get('model')} · stop {record.get('stop_reason')} · "
        f"reward {record.get('reward')}",
        *([f"stopped by: {redact_text(str(record['stop_detail']))}"] if record.get("stop_detail") else []),
        f"tokens in {usage.get('prompt_tokens', 0):,} / out {usage.get('completion_tokens', 0):,} · "
        f"{timing.get('wall_s', '-')} s",
    ]
    return Panel(Text("\n".join(lines)), title=str(record.get("key")), border_style="cyan")


def _message_panel(message: dict[str, Any], full: bool) -> Panel:
    role = str(message.get("role"))
    content = str(message.get("content") or "")
    if role == "system":
        return Panel(Text(_clip(content, None if full else SYSTEM_CLIP)), title="system", border_style="dim")
    if role == "tool":
        style = "red" if content.startswith("Error:") else "green"
        return Panel(
            Text(_clip(content, None if full else CLIP)),
            title=f"tool · {message.get('tool_call_id')}",
            title_align="left",
            border_style=style,
        )
    if role == "assistant":
        return Panel(_assistant_body(message, full), title="assistant", title_align="left", border_style="magenta")
    style = "red" if content.startswith("Error:") else "cyan"
    return Panel(Text(_clip(content, None if full else CLIP)), title=role, title_align="left", border_style=style)


def _assistant_body(message: dict[str, Any], full: bool) -> Group:
    parts: list[Text] = []
    limit = None if full else CLIP
    if message.get("reasoning_content"):
        parts.append(Text(_clip(str(message["reasoning_content"]), limit), style="dim italic"))
    if message.get("content"):
        parts.append(Text(_clip(str(message["content"]), limit)))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        arguments = _compact(function.get("arguments"))
        parts.append(Text(f"→ {function.get('name')}({_clip(arguments, limit)})  [{call.get('id')}]", style="bold"))
    if not parts:
        parts.append(Text("(no tool call: finish)", style="dim"))
    return Group(*parts)


def _compact(arguments: Any) -> str:
    if not isinstance(arguments, str):
        return json.dumps(arguments, ensure_ascii=False)
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False)
    except ValueError:
        return arguments


def _clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}\n... ({len(text) - limit} more characters)"
