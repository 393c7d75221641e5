"""Fixtures of the contract suite: the env ids it covers, small env selections, and episode helpers.

``ENV_IDS`` is every shipped id (``officegym.ENV_IDS``) plus the example domain, registered here. Helpers read
envs only through the domain contract (``ToolEnv``'s public members), never through a domain class.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import gymnasium as gym
import pytest

import officegym
from officegym.envs.core import FINISH_ACTION, Action, ToolEnv
from officegym.tests.example_domain import EXAMPLE_ID, register_example

register_example()

ENV_IDS: tuple[str, ...] = (*officegym.ENV_IDS, EXAMPLE_ID)
SMALL_KWARGS: dict[str, dict[str, Any]] = {
    "officegym/InvoiceApproval-v0": {"tier": "single"},
    "officegym/InvoiceApproval-v1": {"tier": "single"},
    "officegym/InvoiceApproval-v2": {"tier": "single"},
}
"""Kwargs that keep an env's selected tasks few (fast to play); an id not listed is made with its defaults."""
MAX_TASKS = 10
"""At most this many tasks per env are played to the end (spread over the selected ones)."""

Step = tuple[str, float, bool, bool, dict[str, Any]]


def make(env_id: str, **overrides: Any) -> gym.Env[Any, Any]:
    """``gym.make`` with the env's small kwargs, then ``overrides``."""
    return gym.make(env_id, **{**SMALL_KWARGS.get(env_id, {}), **overrides})


def close(env: gym.Env[Any, Any]) -> None:
    """Close any env or wrapper (typed: some wrappers inherit Gymnasium's unannotated ``close``)."""
    env.close()


def tool_env(env: gym.Env[Any, Any]) -> ToolEnv[Any]:
    """The officegym env under Gymnasium's wrappers: the object that carries the domain contract."""
    inner = env.unwrapped
    assert isinstance(inner, ToolEnv), f"{type(inner).__name__} is not a ToolEnv"
    return inner


def some_tasks(env: gym.Env[Any, Any], limit: int = MAX_TASKS) -> list[str]:
    """Up to ``limit`` selected tasks, evenly spread over the selection (so every tier tends to appear)."""
    task_ids = tool_env(env).task_ids
    return task_ids[:: max(1, len(task_ids) // limit)][:limit]


def step(env: gym.Env[Any, Any], action: Any) -> Step:
    observation, reward, terminated, truncated, info = env.step(action)
    return observation, float(reward), terminated, truncated, info


def play(env: gym.Env[Any, Any], actions: Sequence[Any]) -> list[Step]:
    """Step ``actions`` in order until the episode ends (the rest are not sent)."""
    steps: list[Step] = []
    for action in actions:
        steps.append(step(env, action))
        if steps[-1][2] or steps[-1][3]:
            break
    return steps


def gold_path(env: gym.Env[Any, Any], task_id: str) -> list[Action]:
    """The task's reference path, then ``finish`` (never sent if the path ends the episode itself)."""
    return [*tool_env(env).gold_actions(task_id), FINISH_ACTION]


def play_gold(env: gym.Env[Any, Any], task_id: str, seed: int = 0) -> list[Step]:
    """Reset on ``task_id`` and play its gold path to the end of the episode."""
    env.reset(seed=seed, options={"task_id": task_id})
    return play(env, gold_path(env, task_id))


def offers_catalogue(env: gym.Env[Any, Any]) -> bool:
    """Whether the domain offers a discrete action catalogue (``action_catalogue`` raises TypeError if not)."""
    try:
        tool_env(env).action_catalogue(10)
    except TypeError:
        return False
    return True


@pytest.fixture(params=ENV_IDS)
def env_id(request: pytest.FixtureRequest) -> str:
    """Each covered env id in turn: a test taking ``env_id`` (or ``env``) runs once per domain."""
    value: str = request.param
    return value


@pytest.fixture()
def env(env_id: str) -> Iterator[gym.Env[Any, Any]]:
    """The env of ``env_id`` with its small kwargs, closed afterwards."""
    made = make(env_id)
    yield made
    made.close()
