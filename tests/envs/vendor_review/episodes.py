"""Playing a policy over every selected deal of a VendorReview env, for the tests of every version."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from officegym.policies.base import Policy
from officegym.policies.registry import make_policy


def play(env: gym.Env[Any, Any], task_id: str, agent: Policy) -> float:
    """One episode of ``agent`` on ``task_id``; its final reward."""
    observation, info = env.reset(options={"task_id": task_id})
    agent.reset(observation, info)
    while True:
        observation, reward, terminated, truncated, _ = env.step(agent.act(observation))
        if terminated or truncated:
            return float(reward)


def scores(env: gym.Env[Any, Any], policy: str) -> list[float]:
    """The named policy's reward on every deal the env selects, in task order."""
    task_ids = env.unwrapped.task_ids  # type: ignore[attr-defined]
    return [play(env, task_id, make_policy(policy, env, 0)) for task_id in task_ids]
