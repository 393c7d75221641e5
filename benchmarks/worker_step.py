"""How long one ``env.step`` takes inside the workers of an ``AsyncVectorEnv``, next to the same step in a hot
loop in one process.

This is the number behind the async ratio: with 8 worker processes on 2 cores, a worker sleeps between steps
and wakes with cold caches, so a step costs several times its hot-loop time. Each worker times its own
``step`` calls (a thin wrapper around the env, so the pipes and pickling are not included) and reports the
mean when asked.
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv, AutoresetMode

from . import noop_env  # noqa: F401  (registers the no-op env)
from .throughput import ENV_KWARGS, NOOP, READ_ACTION, TASK
from .timing import sample_us, summary


class TimedStep(gym.Wrapper[Any, Any, Any, Any]):
    """Accumulates the time spent in the wrapped env's ``step``."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        super().__init__(env)
        self.seconds = 0.0
        self.steps = 0

    def step(self, action: Any) -> Any:
        start = time.perf_counter()
        result = self.env.step(action)
        self.seconds += time.perf_counter() - start
        self.steps += 1
        return result

    def mean_step_us(self) -> float:
        return self.seconds / max(self.steps, 1) * 1e6


def _timed_factory(env_id: str) -> Any:
    return lambda: TimedStep(gym.make(env_id, **ENV_KWARGS[env_id]))


def in_workers_us(env_id: str, num_envs: int, seconds: float) -> float:
    """Mean step time inside the workers of an async vector env (officegym's settings), all workers pooled."""
    envs = AsyncVectorEnv(
        [_timed_factory(env_id) for _ in range(num_envs)], shared_memory=False, autoreset_mode=AutoresetMode.SAME_STEP
    )
    envs.reset(seed=0, options={"task_id": TASK[env_id]} if env_id in TASK else None)
    actions = (READ_ACTION[env_id],) * num_envs
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        envs.step(actions)
    means: tuple[float, ...] = envs.call("mean_step_us")
    envs.close()
    return round(sum(means) / len(means), 1)


def hot_loop_us(env_id: str, repeats: int) -> float:
    """The same step repeated in this process: caches stay warm."""
    env = gym.make(env_id, **ENV_KWARGS[env_id])
    env.reset(seed=0, options={"task_id": TASK[env_id]} if env_id in TASK else None)
    action = READ_ACTION[env_id]
    return summary(sample_us(lambda: env.step(action), repeats))["p50_us"]


def run(quick: bool = False, num_envs: int = 8) -> dict[str, dict[str, float]]:
    seconds, repeats = (0.3, 300) if quick else (2.0, 3000)
    return {
        env_id.split("/")[1]: {
            "hot_loop_p50_us": hot_loop_us(env_id, repeats),
            f"in_{num_envs}_async_workers_mean_us": in_workers_us(env_id, num_envs, seconds),
        }
        for env_id in (NOOP, *TASK)
    }
