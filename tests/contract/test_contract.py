"""The Gymnasium side of the contract, on every env: checkers, determinism, grading, truncation, rendering.

DESIGN.md's rules, checked here: observations are text; an action is one tool call; ``finish`` ends the episode;
the reward is 0 until the last step, which carries the grade (``info["grade"]``); ``max_turns`` truncates and is
graded; the same seed and actions give the same episode.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from officegym.envs.core import FINISH_ACTION
from officegym.policies.registry import make_policy

from .conftest import gold_path, make, play, play_gold, some_tasks, step, tool_env

RANDOM_STEPS = 40


def test_gymnasium_check_env(env_id: str) -> None:
    env = make(env_id, render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=False)
    env.close()


def test_reset_info_describes_the_task(env: gym.Env[Any, Any]) -> None:
    inner = tool_env(env)
    task_id = inner.task_ids[0]
    observation, info = env.reset(seed=0, options={"task_id": task_id})
    assert isinstance(observation, str) and observation
    assert info["task_id"] == task_id
    assert info["tier"] == inner.task_tier(task_id)
    assert info["system_prompt"] == inner.system_prompt() and info["system_prompt"].strip()
    assert info["tools"] == inner.tool_schemas
    with pytest.raises(ValueError, match="unknown task_id"):
        env.reset(options={"task_id": "no-such-task"})


def _random_episode(env: gym.Env[Any, Any], seed: int) -> list[Any]:
    """A seeded random episode (task drawn by the env's RNG, actions by the policy's), as a comparable list."""
    observation, info = env.reset(seed=seed)
    policy = make_policy("random", env, seed)
    policy.reset(observation, info)
    transcript: list[Any] = [(observation, info)]
    for _ in range(RANDOM_STEPS):
        result = step(env, policy.act(observation))
        transcript.append(result)
        observation = result[0]
        if result[2] or result[3]:
            break
    return transcript


def test_same_seed_and_actions_give_the_same_episode(env_id: str) -> None:
    first, second = make(env_id), make(env_id)
    task_id = tool_env(first).task_ids[0]
    assert play_gold(first, task_id, seed=3) == play_gold(second, task_id, seed=3)
    for seed in (0, 1, 2):
        episode = _random_episode(first, seed)
        assert episode == _random_episode(second, seed), f"seed {seed}: two envs diverged"
        assert episode == _random_episode(first, seed), f"seed {seed}: a replay on the same env diverged"
    first.close()
    second.close()


def test_gold_path_scores_full_marks(env: gym.Env[Any, Any]) -> None:
    inner = tool_env(env)
    for task_id in some_tasks(env):
        off_schema = [a for a in inner.gold_actions(task_id) if not env.action_space.contains(a)]
        assert not off_schema, f"{task_id}: gold actions outside the action space: {off_schema}"
        steps = play_gold(env, task_id)
        *middle, (_, reward, terminated, truncated, info) = steps
        assert all(s[1] == 0.0 for s in middle), f"{task_id}: a reward before the last step"
        assert terminated and not truncated, f"{task_id}: the gold path did not end the episode"
        assert reward == 1.0 and info["grade"]["reward"] == 1.0, f"{task_id}: grade {info['grade']}"
        assert inner.progress()["reward"] == 1.0, f"{task_id}: progress() disagrees with the grade"
        assert inner.failure_report() == [], f"{task_id}: a full-marks episode reports failures"


def test_finish_right_away_is_graded(env: gym.Env[Any, Any]) -> None:
    env.reset(seed=0)
    expected = tool_env(env).progress()["reward"]
    _, reward, terminated, truncated, info = step(env, FINISH_ACTION)
    assert terminated and not truncated
    assert info["grade"]["reward"] == reward == expected
    assert 0.0 <= reward <= 1.0
    report = tool_env(env).failure_report()
    assert (report == []) == (reward == 1.0), "the failure report must be empty exactly on full marks"
    assert all(set(row) == {"kind", "record", "field", "expected", "actual", "rule"} for row in report)
    assert all(isinstance(value, str) for row in report for value in row.values())
    observation, reward, terminated, *_ = step(env, FINISH_ACTION)  # stepping a finished episode never raises
    assert observation.startswith("Error: ") and reward == 0.0 and terminated


def test_max_turns_truncates_and_is_graded(env_id: str) -> None:
    probe = tool_env(make(env_id))  # a domain may refuse a max_turns below its longest selected gold path
    limit = max(2, *(len(probe.gold_actions(t)) for t in probe.task_ids))
    env = make(env_id, max_turns=limit)
    env.reset(seed=0, options={"task_id": probe.task_ids[0]})
    steps = play(env, [{"name": "no_such_tool", "arguments": {}}] * (limit + 1))
    assert len(steps) == limit
    _, reward, terminated, truncated, info = steps[-1]
    assert truncated and not terminated and "grade" in info and info["grade"]["reward"] == reward
    env.close()


def test_render_ansi_shows_the_calls(env_id: str) -> None:
    env = make(env_id, render_mode="ansi")
    task_id = tool_env(env).task_ids[0]
    steps = play_gold(env, task_id)
    text: object = env.render()
    assert isinstance(text, str)
    called = {a["name"] for a in gold_path(env, task_id)[: len(steps)]}
    assert all(name in text for name in called), f"render() misses some of {sorted(called)}"
    env.close()


def test_render_human_prints(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = make(env_id, render_mode="human")
    task_id = tool_env(env).task_ids[0]
    play_gold(env, task_id)
    assert env.render() is None
    out = capsys.readouterr().out
    assert tool_env(env).gold_actions(task_id)[0]["name"] in out
    env.close()
