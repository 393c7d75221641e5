"""The README's picture of an episode: ``docs/assets/episode.svg``, rich's own SVG export of a rendered episode.

``.venv/bin/python docs/make_screenshot.py`` plays ``solver_v1`` (the reference solver, working from
observations only) on InvoiceApproval-v1's ``single-7`` and prints every step with the panels that
``officegym run --render`` shows (``officegym.envs.core.rendering.step_panel``) into a recording ``rich`` console,
then saves it as SVG. Tool results are cut to a few lines, so the picture shows the shape of an episode (the work
order, the reads, the decisions, the grade) on one screen; ``officegym run ... --render`` shows them whole.

The episode is deterministic, so running the script again rewrites the same picture unless the env or the
renderer changed. ``--check`` exits 1 when the committed file differs from a fresh rendering.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
from rich.console import Console

import officegym  # noqa: F401  (registers the env ids)
from officegym.envs.core.rendering import TranscriptEntry, grade_view, json_value, step_panel
from officegym.policies.registry import make_policy

ENV_ID = "officegym/InvoiceApproval-v1"
TASK_ID = "single-7"
POLICY = "solver_v1"
WIDTH = 100
RESULT_LINES = 3
OUT = Path(__file__).resolve().parent / "assets" / "episode.svg"
TITLE = f"officegym run {ENV_ID} --policy {POLICY} --task-id {TASK_ID} --render"
GRADE_KEYS = ("reward", "state_matches", "scope_correct", "wrong_invoices", "invalid_calls", "turns")
"""The grade's headline keys (the full grade has a few more diagnostics)."""


def _short(text: str, lines: int = RESULT_LINES, width: int = WIDTH - 4) -> str:
    """The first ``lines`` lines of a tool result as a panel shows them (wrapped at ``width``), then a marker."""
    wrapped = [chunk[i : i + width] for chunk in text.splitlines() or [""] for i in range(0, max(len(chunk), 1), width)]
    if len(wrapped) <= lines:
        return text
    return "\n".join([*wrapped[:lines], f"... ({len(wrapped) - lines} more lines)"])


def record_episode(console: Console) -> dict[str, Any]:
    """Play the episode, print each step on ``console``, return its grade."""
    env = gym.make(ENV_ID)
    policy = make_policy(POLICY, env, 0)
    observation, info = env.reset(seed=0, options={"task_id": TASK_ID})
    policy.reset(observation, info)
    console.print(step_panel(TranscriptEntry(0, None, {}, observation)))
    turn, done = 0, False
    grade: dict[str, Any] = {}
    while not done:
        action = policy.act(observation)
        observation, _, terminated, truncated, info = env.step(action)
        turn, done = turn + 1, terminated or truncated
        shown = observation if json_value(observation) is not None else _short(observation)  # JSON: clipped laid out
        entry = TranscriptEntry(turn, action["name"], dict(action["arguments"]), shown)
        console.print(step_panel(entry, limit=RESULT_LINES))
        grade = info.get("grade", grade)
    env.close()
    return dict(grade)


def recorded_console() -> Console:
    """A recording console (printing nowhere) that holds the whole episode and its grade."""
    console = Console(record=True, width=WIDTH, file=io.StringIO(), color_system="truecolor")
    grade = record_episode(console)
    console.print(grade_view({key: grade[key] for key in GRADE_KEYS if key in grade}))
    return console


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed picture is out of date")
    args = parser.parse_args(argv)
    console = recorded_console()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.is_file() else ""
        if current != console.export_svg(title=TITLE):
            print(f"Error: {OUT} is out of date: run python docs/make_screenshot.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    console.save_svg(str(OUT), title=TITLE)
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
