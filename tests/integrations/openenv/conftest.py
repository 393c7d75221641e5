"""Shared by the OpenEnv server tests: in-process servers for every env id, and what a local env answers.

The servers run on background threads of the test process (``running_server``), on free loopback ports, and
are shut down when the module's tests are done. The load test starts its own servers as subprocesses.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import gymnasium as gym
import pytest

import officegym
from officegym.envs.core.actions import FINISH_ACTION

HANG_GUARD = 600.0
"""Seconds a socket may wait: a guard against a hang, not a speed check (CI is 2 shared cores, 4x slower under load)."""
ENV_IDS = list(officegym.ENV_IDS)


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    """One in-process OpenEnv server per env id, by env id."""
    from officegym.integrations.openenv_server import running_server

    with ExitStack() as stack:
        yield {env_id: stack.enter_context(running_server(env_id)) for env_id in ENV_IDS}


def gold_path(env_id: str, task_id: str) -> list[dict[str, Any]]:
    """The task's reference path, then ``finish`` (never sent if the path ends the episode itself)."""
    env = gym.make(env_id)
    path = [*env.unwrapped.gold_actions(task_id), FINISH_ACTION]  # type: ignore[attr-defined]
    env.close()
    return path


def one_task_per_tier(env_id: str) -> list[str]:
    """The first task of each of the env's tiers: a few tasks that cover every kind of work order."""
    env = gym.make(env_id)
    inner: Any = env.unwrapped
    tasks = [next(t for t in inner.task_ids if inner.task_tier(t) == tier) for tier in inner.TIERS]
    env.close()
    return tasks
