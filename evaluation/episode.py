"""One evaluation episode: a chat policy plays a task through the ``ChatWrapper`` until the episode ends.

The loop is the same for every policy: ask the policy for an assistant message on the transcript, step the
wrapper with it, until the env ends the episode (finish, a terminal tool, or ``max_turns``, which bounds the
loop because every assistant message costs at least one env step). The result carries what the record needs:
the transcript, the calls, the grade, token usage and where the time went.

Two answers of the policy end the episode early and are scored as it stands, because they are the model's
doing: a transcript too long for its context (``context_length``) and a server refusing what the model wrote
(``rejected_output``). Anything else the policy raises is an infrastructure failure: it reaches the caller as
:class:`EpisodeFailed`, which keeps the transcript so far for the error record.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from ..policies.chat import ChatPolicy, ContextLengthExceeded, ModelOutputRejected, add_usage
from ..wrappers.chat import ChatWrapper
from .failures import failure_rows


class EpisodeCancelled(Exception):
    """The run is stopping (Ctrl-C, a fatal error elsewhere): this episode is dropped, not recorded."""


@dataclass
class EpisodeRun:
    """What happened in one episode (timings are wall-clock seconds, kept out of observations and grades)."""

    task_id: str
    tier: str
    reward: float = 0.0
    grade: dict[str, Any] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str = ""
    stop_detail: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    chat: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    retries: int = 0
    finish_reasons: Counter[str] = field(default_factory=Counter)
    model_s: float = 0.0
    env_s: float = 0.0
    wall_s: float = 0.0


class EpisodeFailed(Exception):
    """The policy raised (the cause, as ``__cause__``) before the episode ended; ``run`` holds what happened
    until then (transcript, calls, usage), for the error record."""

    def __init__(self, run: EpisodeRun) -> None:
        super().__init__(run.task_id)
        self.run = run


TurnCallback = Callable[[EpisodeRun], None]
"""Called when the episode starts and after every turn, with the episode so far (usage, requests, ``chat``):
what the live view shows while the episode runs."""


def play_chat_episode(
    env: gym.Env[str, Any],
    policy: ChatPolicy,
    task_id: str,
    seed: int,
    *,
    offer_finish: bool = False,
    stop: threading.Event | None = None,
    on_turn: TurnCallback | None = None,
) -> EpisodeRun:
    """Play ``task_id`` with ``policy``. Errors of the policy reach the caller as :class:`EpisodeFailed` (the
    error as its ``__cause__``); once ``stop`` is set, the next turn raises :class:`EpisodeCancelled`."""
    started = time.perf_counter()
    wrapper = ChatWrapper(env, offer_finish=offer_finish)
    observation, info = wrapper.reset(seed=seed, options={"task_id": task_id})
    policy.reset(observation, info)
    run = EpisodeRun(task_id, str(info.get("tier", "")))
    if on_turn is not None:
        on_turn(run)  # in flight from its first request on
    try:
        _play_turns(run, wrapper, policy, stop, on_turn)
    except EpisodeCancelled:
        raise
    except Exception as error:
        _fill(run, wrapper, started)
        raise EpisodeFailed(run) from error
    _fill(run, wrapper, started)
    return run


def _play_turns(
    run: EpisodeRun,
    wrapper: ChatWrapper,
    policy: ChatPolicy,
    stop: threading.Event | None,
    on_turn: TurnCallback | None,
) -> None:
    while wrapper.stop_reason is None:
        if stop is not None and stop.is_set():
            raise EpisodeCancelled(run.task_id)
        ask = time.perf_counter()
        try:
            reply = policy.respond(wrapper.messages, wrapper.tools)
        except ContextLengthExceeded as error:
            _end_early(run, wrapper, "context_length", error)
            return
        except ModelOutputRejected as error:
            _end_early(run, wrapper, "rejected_output", error)
            return
        step = time.perf_counter()
        run.model_s += step - ask
        wrapper.step(reply.message)
        run.env_s += time.perf_counter() - step
        add_usage(run.usage, reply.usage)
        run.requests += reply.requests
        run.retries += reply.retries
        if reply.finish_reason is not None:
            run.finish_reasons[reply.finish_reason] += 1
        if on_turn is not None:
            run.chat = wrapper.stats.as_dict()
            on_turn(run)


def _end_early(run: EpisodeRun, wrapper: ChatWrapper, reason: str, error: Exception) -> None:
    """The model cannot go on: the episode is graded as it stands, and the server's words are kept."""
    run.stop_detail = str(error)
    wrapper.end(reason)


def failure_report(env: Any) -> list[dict[str, str]]:
    """Where the episode fell short of the gold outcome, one labelled row per differing field (the format of
    ``evaluation/failures.py``), for the record, ``officegym show`` and the HTML report; empty on full marks,
    and for an env that offers none."""
    return failure_rows(env)


def _fill(run: EpisodeRun, wrapper: ChatWrapper, started: float) -> None:
    run.wall_s = time.perf_counter() - started
    run.grade = dict(wrapper.grade or {})
    run.reward = float(run.grade.get("reward", 0.0))
    run.failures = failure_report(wrapper)
    run.stop_reason = wrapper.stop_reason or ""
    run.messages = wrapper.messages
    run.tools = wrapper.tools
    run.tool_calls = wrapper.calls
    run.chat = wrapper.stats.as_dict()
