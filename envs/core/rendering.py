"""Terminal rendering of an episode: plain text for ``render_mode="ansi"``, rich panels for ``"human"``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ...spaces.safe_value import safe_text

MAX_SHOWN = 1200


@dataclass(frozen=True)
class TranscriptEntry:
    """One line of the transcript: the opening message (``name`` is None), or a tool call and its result."""

    turn: int
    name: str | None
    arguments: dict[str, Any]
    result: str


def _clip(text: str, limit: int = MAX_SHOWN) -> str:
    return text if len(text) <= limit else f"{text[:limit]}\n... ({len(text) - limit} more characters)"


def _call_text(entry: TranscriptEntry) -> str:
    # an action given as a Python dict may hold values JSON cannot show (a set, any object): show their repr
    args = json.dumps(entry.arguments, ensure_ascii=False, default=lambda value: safe_text(value, 60, repr))
    return f"{entry.name}({args})"


def transcript_text(title: str, entries: list[TranscriptEntry], grade: dict[str, Any] | None) -> str:
    """The whole episode as plain text (what ``render()`` returns in ``"ansi"`` mode)."""
    lines = [f"== {title} =="]
    for entry in entries:
        if entry.name is None:
            lines.append(f"[user] {_clip(entry.result)}")
        else:
            lines.append(f"[turn {entry.turn}] {_call_text(entry)}")
            lines.append(f"  -> {_clip(entry.result)}")
    if grade is not None:
        lines.append("[grade] " + ", ".join(f"{k}={v}" for k, v in grade.items() if not isinstance(v, dict)))
    return "\n".join(lines) + "\n"


def print_entry(console: Console, entry: TranscriptEntry) -> None:
    """One rich panel per step: the tool call as the title, its result as the body (errors in red)."""
    if entry.name is None:
        console.print(Panel(Text(_clip(entry.result)), title="work order", border_style="cyan"))
        return
    style = "red" if entry.result.startswith("Error:") else "green"
    console.print(
        Panel(
            Text(_clip(entry.result, 600)),
            title=Text(f"turn {entry.turn}: {_call_text(entry)}"[:160]),
            title_align="left",
            border_style=style,
        )
    )


def print_grade(console: Console, grade: dict[str, Any]) -> None:
    """The reward breakdown as a table."""
    table = Table(title="grade", show_header=True)
    table.add_column("key")
    table.add_column("value", justify="right")
    for key, value in grade.items():
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)
        table.add_row(key, shown)
    console.print(table)
