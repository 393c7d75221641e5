"""``officegym replay``: re-execute stored episodes on fresh envs and check that their grades come out the same.

This is how a result is audited later: the stored assistant messages go, in order, through a new
``ChatWrapper`` on a new env with the recorded env id, arguments, task and seed. Every tool call runs again
(parsing included), so a grade that was edited, or produced by other code or data, does not reproduce. The
env is deterministic, so the replayed transcript must match the stored one as well; both checks are reported,
and only the grade decides success. Episodes that failed on infrastructure were never scored and are skipped.
The summary says ``all N match``, or how many did and lists only the episodes that differ.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..wrappers.chat import ChatWrapper

DETAIL_CLIP = 240  # a difference's text in the table (the grade keys that differ, stored -> replayed)


@dataclass(frozen=True)
class ReplayResult:
    key: str
    stored_reward: float | None
    replayed_reward: float | None
    grade_matches: bool
    transcript_matches: bool
    detail: str = ""


def replay_record(record: dict[str, Any]) -> ReplayResult:
    """Replay one record; differences are described in ``detail``."""
    key = str(record.get("key"))
    env = gym.make(record["env_id"], task_ids=[record["task_id"]], **(record.get("env_kwargs") or {}))
    try:
        wrapper = ChatWrapper(env, offer_finish=bool(record.get("offer_finish")))
        wrapper.reset(seed=record.get("seed"), options={"task_id": record["task_id"]})
        for message in record.get("messages", []):
            if message.get("role") == "assistant" and wrapper.stop_reason is None:
                wrapper.step(message)
        if wrapper.stop_reason is None:  # the model could not answer any more (context full): it ended there
            wrapper.end(str(record.get("stop_reason") or "finish"))
        replayed, stored = _normal(wrapper.grade or {}), _normal(record.get("grade") or {})
        same_transcript = _normal(wrapper.messages) == _normal(record.get("messages", []))
    finally:
        env.close()
    detail = _difference(stored, replayed)
    return ReplayResult(key, record.get("reward"), replayed.get("reward"), not detail, same_transcript, detail)


def replay_table(results: list[ReplayResult]) -> RenderableType:
    """``all N match`` when every grade and transcript came out the same; else how many did, and a table of
    only the episodes that differ (a file of 180 episodes shows its 2 differences, not 178 rows of "same")."""
    differing = [r for r in results if not (r.grade_matches and r.transcript_matches)]
    if not differing:
        return Text(f"replay: all {len(results)} match (grade and transcript)", style="green")
    header = Text(f"replay: {len(results) - len(differing)} of {len(results)} match; {len(differing)} differ:")
    table = Table(title=None)
    for column in ("key", "stored", "replayed", "grade", "transcript", "difference"):
        table.add_column(column, no_wrap=column in ("key", "stored", "replayed"), overflow="fold")
    for result in differing:
        table.add_row(
            result.key,
            _fmt(result.stored_reward),
            _fmt(result.replayed_reward),
            "[green]same[/green]" if result.grade_matches else "[red]DIFFERS[/red]",
            "same" if result.transcript_matches else "[yellow]differs[/yellow]",
            result.detail[:DETAIL_CLIP],
        )
    return Group(header, table)


def _normal(value: Any) -> Any:
    """As it reads back from JSON (tuples become lists), so stored and replayed compare like for like."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _difference(stored: dict[str, Any], replayed: dict[str, Any]) -> str:
    keys = sorted(k for k in {*stored, *replayed} if stored.get(k) != replayed.get(k))
    return ", ".join(f"{k}: {stored.get(k)!r} -> {replayed.get(k)!r}" for k in keys)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
