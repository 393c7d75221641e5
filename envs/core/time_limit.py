"""Grading at Gymnasium's ``TimeLimit``: ``gym.make(id, max_episode_steps=N)`` must not score a solve as 0.

Gymnasium applies ``max_episode_steps`` with its ``TimeLimit`` wrapper, outside the env: at step N it reports
``truncated`` while the env, which never saw the limit, has not ended the episode, so no grade is computed and
the reward is 0 whatever the agent did. ``max_turns`` (the env's own limit) grades the final state; this makes
both limits mean the same.

Every officegym id is registered with :func:`grade_at_time_limit` as an additional wrapper, which Gymnasium
applies right after ``TimeLimit``. Without a ``TimeLimit`` beneath it returns the env unchanged (nothing is
added to the step path); with one it adds :class:`GradeAtTimeLimit`, which grades the episode on the step the
limit cuts it, through the env's ``cut_off()``.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.envs.registration import WrapperSpec
from gymnasium.wrappers import TimeLimit

ENTRY_POINT = "officegym.envs.core.time_limit:grade_at_time_limit"
SPEC = WrapperSpec(name="GradeAtTimeLimit", entry_point=ENTRY_POINT, kwargs={})


def grade_at_time_limit(env: gym.Env[Any, Any]) -> gym.Env[Any, Any]:
    """The env itself, or the env wrapped in :class:`GradeAtTimeLimit` when a ``TimeLimit`` is beneath."""
    inner: Any = env
    while isinstance(inner, gym.Wrapper):
        if isinstance(inner, TimeLimit):
            return GradeAtTimeLimit(env)
        inner = inner.env
    return env


class GradeAtTimeLimit(gym.Wrapper[Any, Any, Any, Any]):
    """On a truncated step that carries no grade, grade the episode where it stands (the env's reward then)."""

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if truncated and not terminated and "grade" not in info:
            reward, grade = self.env.unwrapped.cut_off()  # type: ignore[attr-defined]
            info = {**info, "grade": grade}
        return observation, reward, terminated, truncated, info
