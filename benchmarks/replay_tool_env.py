"""The second floor of ``officegym serve``: InvoiceApproval-v0's messages without its work.

The no-op floor (``noop_tool_env.py``) answers every call with ``"ok"``; InvoiceApproval answers with pages of
JSON, and its calls carry arguments. To tell what those bigger messages cost the app from what the env's own
work costs, this env takes InvoiceApproval-v0's calls and gives InvoiceApproval-v0's answers, byte for byte,
without doing any of the work: it has v0's tools (the same names, schemas and argument checks: officegym's
dispatch runs as it does for v0), v0's tasks, v0's system prompt and tool list at reset, and per task the
replies v0 gave on its gold path, recorded once per process, played back in order. No database, no grading
(the grade is v0's, recorded too). Between the no-op and v0 it splits the gap into the app's share (this env
against the no-op) and the env's share (v0 against this env).

Only the gold path is replayed: any other call gets the next recorded reply all the same. Served as
``benchmarks.replay_tool_env:officegym-bench/ReplayInvoice-v0``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import gymnasium as gym

from officegym.envs.core import Grade, Tool, ToolEnv, ToolError
from officegym.envs.core.actions import FINISH_ACTION

ENV_ID = "officegym-bench/ReplayInvoice-v0"
SOURCE_ID = "officegym/InvoiceApproval-v0"
ERROR = "Error: "


@dataclass(frozen=True)
class Recording:
    """What v0 said on one task's gold path: the opening message, the reset's task info, each step's text, and
    the grade of its finish."""

    opening: str
    task_info: dict[str, Any]
    replies: tuple[str, ...]
    grade: dict[str, Any]


@dataclass
class Replay:
    """One episode of the replay: its task's recording and how many replies have gone out."""

    recording: Recording
    at: int = 0

    def next_reply(self) -> str:
        """The next recorded reply; one v0 answered with an ``Error:`` is raised as v0 raised it."""
        replies = self.recording.replies
        reply = replies[self.at % len(replies)]
        self.at += 1
        if reply.startswith(ERROR):
            raise ToolError(reply[len(ERROR) :])
        return reply


@dataclass(frozen=True)
class Source:
    """What the replay takes from v0: its system prompt, tools, tiers, tasks and each task's recording."""

    system_prompt: str
    tools: tuple[Tool, ...]
    tiers: tuple[str, ...]
    task_ids: tuple[str, ...]
    recordings: dict[str, Recording]


@functools.cache
def source() -> Source:
    """v0, read once per process (its gold paths are played to record them)."""
    env = gym.make(SOURCE_ID)
    inner: Any = env.unwrapped
    recordings = {task: _record(env, inner, task) for task in inner.task_ids}
    found = Source(inner.system_prompt(), tuple(inner.TOOLS), tuple(inner.TIERS), tuple(inner.task_ids), recordings)
    env.close()
    return found


def _record(env: gym.Env[Any, Any], inner: Any, task: str) -> Recording:
    opening, info = env.reset(seed=0, options={"task_id": task})
    replies = [str(env.step(call)[0]) for call in inner.gold_actions(task)]
    *_, finish_info = env.step(FINISH_ACTION)
    task_info = {key: value for key, value in info.items() if key not in ("system_prompt", "tools", "task_id")}
    return Recording(str(opening), task_info, tuple(replies), dict(finish_info["grade"]))


def _replay(ctx: Replay, **arguments: Any) -> str:
    """Whatever the call, the recording's next reply."""
    return ctx.next_reply()


def replay_tools() -> tuple[Tool, ...]:
    """v0's tools with the replay in place of each one's body (none of them writes: there are no books)."""
    return tuple(dataclasses.replace(tool, func=_replay, writes=False) for tool in source().tools)


class ReplayInvoiceEnv(ToolEnv[Replay]):
    """InvoiceApproval-v0's tasks, tools and replies, played back."""

    TOOLS: ClassVar[tuple[Tool, ...]] = ()
    TIERS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, max_turns: int = 1_000_000, render_mode: str | None = None) -> None:
        # filled when the first env is made, not at import: reading v0's tools means playing v0's gold paths
        type(self).TOOLS, type(self).TIERS = replay_tools(), source().tiers
        super().__init__(max_turns=max_turns, render_mode=render_mode)

    def _task_ids(self) -> Sequence[str]:
        return source().task_ids

    def _start_episode(self, task_id: str) -> tuple[Replay, str, dict[str, Any]]:
        recording = source().recordings[task_id]
        return Replay(recording), recording.opening, dict(recording.task_info)

    def _grade_episode(self, ctx: Replay) -> Grade:
        grade = dict(ctx.recording.grade)
        return Grade(float(grade.pop("reward")), {}, grade)

    def task_tier(self, task_id: str) -> str:
        return str(source().recordings[task_id].task_info.get("tier", ""))

    def system_prompt(self) -> str:
        return source().system_prompt


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="benchmarks.replay_tool_env:ReplayInvoiceEnv")
