"""Terminal rendering of an episode: plain text for ``render_mode="ansi"``, rich panels for ``"human"``, and the
CLI's own view of each step (``ShowSteps``: JSON laid out whole, documents whole) for ``officegym run`` and ``demo``."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, SupportsFloat

import gymnasium as gym
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.highlighter import JSONHighlighter
from rich.measure import Measurement
from rich.panel import Panel
from rich.rule import Rule
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


# ----------------------------------------------------------------- the CLI's view of an episode
# ``officegym run --render`` and ``officegym demo`` show each step with what follows, through ``ShowSteps``.
# The env's own ``render()`` above stays as released (its "ansi" text is part of v0's frozen behaviour).

MAX_JSON_LINES = 40
"""Lines of a JSON tool result the step view shows before it clips (``run --full`` shows every line). Text
results (documents, messages) are shown whole: the agent read them whole."""

INDENT = "  "


def json_lines(value: Any, width: int) -> list[str]:
    """``value`` as JSON laid out for ``width`` columns. An object or array that fits on the rest of its line
    stays there; else it opens, and its members follow indented, as many to a line as fit (a member that is an
    object or array too big for a line gets lines of its own, laid out the same way; a long value goes under
    its key). Lines break only between tokens, so a line is wider than ``width`` only where one token is."""
    return _layout(value, "", "", 0, width)


def _flat(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=_shown)


def _shown(value: Any) -> str:
    """A value JSON cannot show (a set, any object, as an action given as a Python dict may hold): its repr."""
    return safe_text(value, 60, repr)


def _layout(value: Any, head: str, tail: str, depth: int, width: int) -> list[str]:
    """``value`` after ``head`` (its key and colon, or nothing) and before ``tail`` (a comma, or nothing)."""
    pad = INDENT * depth
    line = f"{pad}{head}{_flat(value)}{tail}"
    if cell_len(line) <= width:
        return [line]
    if isinstance(value, dict) and value:
        members, brackets = [(f"{_flat(str(key))}: ", item) for key, item in value.items()], "{}"
    elif isinstance(value, list | tuple) and value:
        members, brackets = [("", item) for item in value], "[]"
    elif head:
        return [f"{pad}{head.rstrip()}", f"{pad}{INDENT}{_flat(value)}{tail}"]
    else:
        return [line]
    return [f"{pad}{head}{brackets[0]}", *_members(members, depth + 1, width), f"{pad}{brackets[1]}{tail}"]


def _members(members: list[tuple[str, Any]], depth: int, width: int) -> list[str]:
    """The members of an object or array, packed: each one that fits joins the line before it if there is room."""
    pad = INDENT * depth
    lines: list[str] = []
    packing = ""  # the line being filled, without its indentation
    for index, (key, item) in enumerate(members):
        piece = f"{key}{_flat(item)}{',' if index < len(members) - 1 else ''}"
        if packing and cell_len(f"{pad}{packing} {piece}") <= width:
            packing = f"{packing} {piece}"
            continue
        if packing:
            lines.append(pad + packing)
        if cell_len(pad + piece) <= width:
            packing = piece
            continue
        packing = ""
        lines += _layout(item, key, piece[-1] if piece.endswith(",") else "", depth, width)
    return [*lines, pad + packing] if packing else lines


class JsonBlock:
    """A JSON value laid out by :func:`json_lines` for the width it is drawn at, highlighted, at most ``limit``
    lines (``None``: all). Laying out at draw time is what keeps a token whole: rich's own wrapping of a long JSON
    line breaks wherever the screen ends, inside a string or a number."""

    def __init__(self, value: Any, limit: int | None = None, style: str = "") -> None:
        self.value = value
        self.limit = limit
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = json_lines(self.value, options.max_width)
        clip = self.limit is not None and len(lines) > self.limit + 1  # never a marker in place of one line
        shown = lines[: self.limit] if clip else lines
        highlight = JSONHighlighter()
        for line in shown:
            yield highlight(Text(line, style=self.style, overflow="fold"))  # folds only a token wider than the screen
        if len(shown) < len(lines):
            yield Text(f"... {len(lines) - len(shown)} more lines (run --full shows them)", style="dim")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        flat = cell_len(_flat(self.value))
        narrowest = max(cell_len(line) for line in json_lines(self.value, 1))  # every member on its own line
        return Measurement(min(narrowest, flat), max(narrowest, flat))


def json_value(text: str) -> dict[str, Any] | list[Any] | None:
    """The object or array ``text`` holds, or None when it is not JSON of that kind (a document, a message)."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def result_view(result: str, *, full: bool = False, limit: int = MAX_JSON_LINES) -> RenderableType:
    """A tool result as the agent got it: JSON laid out (clipped to ``limit`` lines unless ``full``), anything
    else as its text, whole, wrapped between words."""
    value = json_value(result)
    if value is None:
        return Text(result, overflow="fold")
    return JsonBlock(value, limit=None if full else limit)


def step_panel(entry: TranscriptEntry, *, full: bool = False, limit: int = MAX_JSON_LINES) -> Panel:
    """One step: the opening message, or the tool's name as the title, its arguments, then its result (a JSON
    result clipped to ``limit`` lines unless ``full``)."""
    if entry.name is None:
        return Panel(Text(entry.result, overflow="fold"), title="work order", border_style="cyan")
    style = "red" if entry.result.startswith("Error:") else "green"
    body: RenderableType = result_view(entry.result, full=full, limit=limit)
    if entry.arguments:
        body = Group(JsonBlock(entry.arguments, style="bold"), Rule(style="dim"), body)
    title = Text(f"turn {entry.turn}: {entry.name}", overflow="fold")
    return Panel(body, title=title, title_align="left", border_style=style)


def grade_view(grade: dict[str, Any]) -> Table:
    """The reward breakdown, each nested value laid out as JSON."""
    table = Table(title="grade", show_header=True)
    table.add_column("key", no_wrap=True)
    table.add_column("value")
    for key, value in grade.items():
        shown = JsonBlock(value) if isinstance(value, dict | list) else Text(str(value), overflow="fold")
        table.add_row(key, shown)
    return table


def action_call(action: Any) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments of an action as the step view shows them (a JSON string is read first)."""
    if isinstance(action, str):
        with contextlib.suppress(ValueError):  # not JSON: shown as malformed below
            action = json.loads(action)
    if isinstance(action, Mapping) and isinstance(action.get("name"), str):
        arguments = action.get("arguments", {})
        return action["name"], dict(arguments) if isinstance(arguments, Mapping) else {"arguments": arguments}
    return "<malformed>", {"raw": safe_text(action, 200)}


class ShowSteps(gym.Wrapper[Any, Any, Any, Any]):
    """Prints every step of the episodes played through it (:func:`step_panel`) and the grade at the end
    (:func:`grade_view`) on ``console``: the CLI's view of an episode. ``full``: JSON results unclipped."""

    def __init__(self, env: gym.Env[Any, Any], console: Console, *, full: bool = False) -> None:
        super().__init__(env)
        self.console = console
        self.full = full
        self.turn = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.turn = 0
        self.console.print(step_panel(TranscriptEntry(0, None, {}, str(observation)), full=self.full))
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.turn += 1
        name, arguments = action_call(action)
        entry = TranscriptEntry(self.turn, name, arguments, str(observation))
        self.console.print(step_panel(entry, full=self.full))
        if (terminated or truncated) and isinstance(info.get("grade"), dict):
            self.console.print(grade_view(info["grade"]))
        return observation, reward, terminated, truncated, info
