"""Playing one job of an evaluation (one task, one rollout): the same code in a local thread and in a Ray worker.

Kept apart from the runner, which schedules jobs, so that the Ray backend can import it without importing the
runner (and the runner can import the Ray backend only when asked for).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gymnasium as gym

from ..policies.chat import ChatPolicy, InfrastructureError, redact_text
from .episode import EpisodeCancelled, EpisodeFailed, EpisodeRun, play_chat_episode
from .records import Job, make_record

log = logging.getLogger(__name__)

ChatPolicyFactory = Callable[[gym.Env[str, Any], int], ChatPolicy]
"""Makes the chat policy of one episode (its env, and the episode's seed)."""

TurnReporter = Callable[[Job, EpisodeRun], None]
"""Hears every turn of every episode in flight (the live view); called from the episode's thread."""


@dataclass(frozen=True)
class EvalPlan:
    """What to run. ``policy_info`` is the policy's ``describe()`` (name, model, sampling, endpoint)."""

    env_id: str
    task_ids: list[str]
    policy_info: dict[str, Any]
    output: Path
    rollouts: int = 1
    concurrency: int = 4
    base_seed: int = 0
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    episode_retries: int = 2
    offer_finish: bool = False
    pass_threshold: float = 1.0
    restart: bool = False
    backend: str = "local"
    ray_address: str | None = None

    def config(self) -> dict[str, Any]:
        """The settings recorded with every episode (what a resumed run must share)."""
        info = self.policy_info
        return {
            "env_id": self.env_id,
            "env_kwargs": self.env_kwargs,
            "policy": info["policy"],
            "model": info.get("model"),
            "sampling": info.get("sampling", {}),
            "endpoint": info.get("endpoint", {}),
            "offer_finish": self.offer_finish,
            "base_seed": self.base_seed,
        }


def deliver(futures: list[Future[dict[str, Any] | None]], on_record: Callable[[dict[str, Any]], None]) -> None:
    """Hand each finished episode's record to ``on_record`` as it completes (``None``: the run stopped under
    it); a fatal error raised by ``play`` in any episode is raised here."""
    for future in as_completed(futures):
        record = future.result()
        if record is not None:
            on_record(record)


def play_job(plan: EvalPlan, job: Job, make_policy: ChatPolicyFactory, config: dict[str, Any]) -> dict[str, Any] | None:
    """One episode outside the thread pool (a Ray worker): nothing can cancel it from outside."""
    return play(plan, job, make_policy, config, threading.Event())


def play(
    plan: EvalPlan,
    job: Job,
    make_policy: ChatPolicyFactory,
    config: dict[str, Any],
    stop: threading.Event,
    on_turn: TurnReporter | None = None,
) -> dict[str, Any] | None:
    """One episode, retried on a fresh env after infrastructure errors; never raises but for fatal ones.
    ``None`` when the run stopped under it. The error record of an episode that failed every attempt keeps
    the last attempt's transcript so far: what the model did before the infrastructure broke."""
    problem = ""
    for attempt in range(1, plan.episode_retries + 2):
        started, partial = datetime.now(UTC), None
        env = gym.make(plan.env_id, task_ids=[job.task_id], **plan.env_kwargs)
        report = None if on_turn is None else (lambda run: on_turn(job, run))
        try:
            policy = make_policy(env, job.seed)
            run = play_chat_episode(
                env, policy, job.task_id, job.seed, offer_finish=plan.offer_finish, stop=stop, on_turn=report
            )
            return make_record(config, job, run, attempts=attempt, started_at=started)
        except EpisodeCancelled:
            return None
        except EpisodeFailed as failed:
            partial = failed.run
            problem = _problem(job, failed.__cause__ or failed)
        except Exception as error:  # the policy could not even be made: the record says why
            problem = _problem(job, error)
        finally:
            env.close()
    return make_record(
        config, job, None, error=problem, partial=partial, attempts=plan.episode_retries + 1, started_at=started
    )


def _problem(job: Job, error: BaseException) -> str:
    """The error text for the record; a fatal infrastructure error (bad key, unknown model) is raised."""
    if isinstance(error, InfrastructureError):
        if error.fatal:
            raise error
        return str(error)
    # a policy bug must not end a run of hours: the record says what broke, the log has the traceback
    log.error("episode %s failed", job.key, exc_info=error)
    return redact_text(f"{type(error).__name__}: {error}")
