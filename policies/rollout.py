"""Playing episodes: one policy, one env, one task at a time, with the result under stable keys."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from .base import Policy


@dataclass(frozen=True)
class EpisodeResult:
    task_id: str
    tier: str
    reward: float
    turns: int
    terminated: bool
    truncated: bool
    grade: dict[str, Any] = field(default_factory=dict)


def run_episode(
    env: gym.Env[Any, Any], policy: Policy, task_id: str | None = None, seed: int | None = None
) -> EpisodeResult:
    """Reset ``env`` (to ``task_id`` if given), let ``policy`` act until the episode ends."""
    options = {"task_id": task_id} if task_id is not None else None
    observation, info = env.reset(seed=seed, options=options)
    policy.reset(observation, info)
    reward, turns, terminated, truncated = 0.0, 0, False, False
    step_info: dict[str, Any] = {}
    while not (terminated or truncated):
        observation, r, terminated, truncated, step_info = env.step(policy.act(observation))
        reward = float(r)
        turns += 1
    return EpisodeResult(
        info["task_id"], info.get("tier", ""), reward, turns, terminated, truncated, step_info.get("grade", {})
    )
