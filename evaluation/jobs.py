"""Playing one job of an evaluation (one task, one rollout): the same code in a local thread and in a Ray worker.

Kept apart from the runner, which schedules jobs, so that the Ray backend can import it without importing the
runner (and the runner can import the Ray backend only when asked for).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gymnasium as gym

from ..policies.chat import ChatPolicy, InfrastructureError
from .episode import EpisodeCancelled, play_chat_episode
from .records import Job, make_record

log = logging.getLogger(__name__)

ChatPolicyFactory = Callable[[gym.Env[str, Any], int], ChatPolicy]
"""Makes the chat policy of one episode (its env, and the episode's seed)."""


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


def play_job(plan: EvalPlan, job: Job, make_policy: ChatPolicyFactory, config: dict[str, Any]) -> dict[str, Any] | None:
    """One episode outside the thread pool (a Ray worker): nothing can cancel it from outside."""
    return play(plan, job, make_policy, config, threading.Event())


def play(
    plan: EvalPlan, job: Job, make_policy: ChatPolicyFactory, config: dict[str, Any], stop: threading.Event
) -> dict[str, Any] | None:
    """One episode, retried on a fresh env after infrastructure errors; never raises but for fatal ones.
    ``None`` when the run stopped under it."""
    problem = ""
    for attempt in range(1, plan.episode_retries + 2):
        started = datetime.now(UTC)
        env = gym.make(plan.env_id, task_ids=[job.task_id], **plan.env_kwargs)
        try:
            run = play_chat_episode(
                env, make_policy(env, job.seed), job.task_id, job.seed, offer_finish=plan.offer_finish, stop=stop
            )
            return make_record(config, job, run, attempts=attempt, started_at=started)
        except EpisodeCancelled:
            return None
        except InfrastructureError as error:
            if error.fatal:
                raise
            problem = str(error)
        except Exception as error:  # a policy bug must not end a run of hours: the record says what broke
            log.exception("episode %s failed", job.key)
            problem = f"{type(error).__name__}: {error}"
        finally:
            env.close()
    return make_record(config, job, None, error=problem, attempts=plan.episode_retries + 1, started_at=started)
