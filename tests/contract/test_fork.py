"""fork() and pickling, on every registered env: an independent copy of a running episode at its state."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym

from officegym.envs.core import FINISH_ACTION

from .conftest import play, tool_env


def _rest(env: Any, actions: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    steps = [tuple(env.step(a)[:4]) for a in actions]
    if not steps or not (steps[-1][2] or steps[-1][3]):
        steps.append(tuple(env.step(FINISH_ACTION)[:4]))
    return steps


def test_a_fork_from_the_middle_of_the_gold_path_finishes_it_and_stays_apart(env: gym.Env[Any, Any]) -> None:
    inner = tool_env(env)
    task_id = inner.task_ids[0]
    gold = inner.gold_actions(task_id)
    half = len(gold) // 2
    env.reset(seed=0, options={"task_id": task_id})
    play(env, gold[:half])
    fork, unpickled = inner.fork(), pickle.loads(pickle.dumps(inner))
    original = _rest(inner, gold[half:])
    assert original[-1][1] == 1.0
    assert _rest(fork, gold[half:]) == original  # the same state, so the same observations and grade
    assert _rest(unpickled, gold[half:]) == original


def test_a_fork_keeps_the_random_state_and_the_turn_count(env: gym.Env[Any, Any]) -> None:
    inner = tool_env(env)
    env.reset(seed=7)
    env.step({"name": "no_such_tool", "arguments": {}})
    fork = inner.fork()
    assert fork.stats.turns == inner.stats.turns == 1
    assert fork.reset()[1]["task_id"] == env.reset()[1]["task_id"]  # the same draw from the same generator


def test_an_env_pickles_between_episodes(env: gym.Env[Any, Any]) -> None:
    inner = tool_env(env)
    fresh = pickle.loads(pickle.dumps(inner))
    assert fresh.episode is None and fresh.task_ids == inner.task_ids
    observation, info = fresh.reset(seed=0)
    expected, expected_info = inner.reset(seed=0)
    assert (observation, info["task_id"]) == (expected, expected_info["task_id"])
