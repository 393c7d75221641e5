"""``officegym show``: stored episodes in the terminal, as a list or one transcript at a time.

The list gives one row per episode (reward, why it stopped, turns, parse errors, tokens, infrastructure
errors) and the run summary; ``--episode K`` draws the transcript as the model lived it: the system prompt
(clipped unless ``full``), the work order, each assistant turn with its reasoning, prose and tool calls, each
tool result (errors in red), and the grade with every diagnostic.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..envs.core.rendering import print_grade
from .summary import summarize, summary_table

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


def episode_list(records: list[dict[str, Any]]) -> Table:
    table = Table(title="episodes")
    numbers = ("#", "reward", "turns", "parse errors", "tokens")
    for column in ("#", "key", "tier", "reward", "stop", "turns", "parse errors", "tokens", "error"):
        table.add_column(column, justify="right" if column in numbers else "left", no_wrap=column in ("key", "stop"))
    for index, record in enumerate(records):
        usage = record.get("usage") or {}
        tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
        reward = record.get("reward")
        table.add_row(
            str(index),
            str(record.get("key")),
            str(record.get("tier") or "-"),
            "-" if reward is None else f"{reward:.3f}",
            str(record.get("stop_reason")),
            str(record.get("turns", "-")),
            str((record.get("chat") or {}).get("parse_errors", "-")),
            f"{tokens:,}",
            (record.get("error") or "")[:60],
        )
    return table


def show_list(console: Console, records: list[dict[str, Any]], threshold: float = 1.0) -> None:
    console.print(episode_list(records))
    console.print(summary_table(summarize(records, threshold), "summary"))


def show_episode(console: Console, record: dict[str, Any], *, full: bool = False) -> None:
    """One stored episode, message by message, then its grade."""
    console.print(_header(record))
    if record.get("has_error"):
        console.print(
            Panel(Text(str(record.get("error"))), title="infrastructure error (not scored)", border_style="red")
        )
        return
    for message in record.get("messages", []):
        console.print(_message_panel(message, full))
    print_grade(console, record.get("grade", {}))


def _header(record: dict[str, Any]) -> Panel:
    usage = record.get("usage") or {}
    timing = record.get("timing") or {}
    lines = [
        f"{record.get('env_id')} · task {record.get('task_id')} ({record.get('tier')}) · rollout "
        f"{record.get('rollout')} · seed {record.get('seed')}",
        f"policy {record.get('policy')} · model {record.get('model')} · stop {record.get('stop_reason')} · "
        f"reward {record.get('reward')}",
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
