"""The domain contract's members (``envs/core/tool_env.py``), on every env: tasks and tiers, the demo, progress
and the shaping potential, scripted policies, tool documentation, ID patterns; and the registry's bookkeeping."""

from __future__ import annotations

import math
import re
from typing import Any

import gymnasium as gym
import pytest

import officegym
from officegym.envs.core import FINISH, FINISH_ACTION
from officegym.envs.core.demo import Demo
from officegym.policies.registry import make_policy
from officegym.tests.example_domain import EXAMPLE_ID

from .conftest import ENV_IDS, gold_path, play, step, tool_env


def test_the_example_is_covered_but_not_shipped() -> None:
    assert EXAMPLE_ID in ENV_IDS and EXAMPLE_ID in gym.registry
    assert EXAMPLE_ID not in officegym.ENV_IDS
    assert set(officegym.ENV_IDS) <= set(ENV_IDS)


def test_tasks_and_tiers(env_id: str) -> None:
    inner = tool_env(gym.make(env_id))  # the default selection: every task, every tier
    task_ids = inner.task_ids
    assert task_ids and len(set(task_ids)) == len(task_ids) and all(isinstance(t, str) for t in task_ids)
    assert inner.TIERS and len(set(inner.TIERS)) == len(inner.TIERS)
    assert {inner.task_tier(t) for t in task_ids} <= set(inner.TIERS)
    task_ids.append("edited")  # task_ids is a copy
    assert "edited" not in inner.task_ids
    for tier in inner.TIERS:
        selected = tool_env(gym.make(env_id, tier=tier)).task_ids
        assert selected and all(inner.task_tier(t) == tier for t in selected), tier


def test_episode_exists_from_reset(env: gym.Env[Any, Any]) -> None:
    assert tool_env(env).episode is None
    env.reset(seed=0)
    assert tool_env(env).episode is not None


def test_demo_names_a_task_and_known_policies(env_id: str) -> None:
    env = gym.make(env_id)
    demo = tool_env(env).DEMO
    assert isinstance(demo, Demo) and demo.policies
    assert demo.task_id in tool_env(env).task_ids
    for name in demo.policies:
        policy = make_policy(name, env, seed=0)
        observation, info = env.reset(seed=0, options={"task_id": demo.task_id})
        policy.reset(observation, info)
        assert isinstance(policy.act(observation), dict), name
    env.close()


def test_progress_and_potential_follow_the_gold_path(env: gym.Env[Any, Any]) -> None:
    """``progress()`` floats under stable keys with ``reward`` = the grade now; Phi finite and within [-1, 1]."""
    inner = tool_env(env)
    task_id = inner.task_ids[0]
    env.reset(seed=0, options={"task_id": task_id})
    keys = list(inner.progress())
    assert "reward" in keys
    for action in gold_path(env, task_id):
        measures = inner.progress()
        assert list(measures) == keys and all(isinstance(v, float) and math.isfinite(v) for v in measures.values())
        assert inner.progress() == measures, "reading progress() changed it"
        potential = inner.shaping_potential(measures)
        assert isinstance(potential, float) and -1.0 <= potential <= 1.0
        _, reward, terminated, truncated, _ = step(env, action)
        if terminated or truncated:
            break
    assert inner.progress()["reward"] == reward == 1.0


def test_scripted_policies_play(env_id: str) -> None:
    env = gym.make(env_id)
    inner = tool_env(env)
    factories = type(inner).scripted_policies()  # a class method: names are known without an env
    task_id = inner.DEMO.task_id if inner.DEMO is not None else inner.task_ids[0]
    for name, factory in factories.items():
        policy = factory(inner, 0)
        observation, info = env.reset(seed=0, options={"task_id": task_id})
        policy.reset(observation, info)
        for _ in range(inner.max_turns + 1):  # truncation ends every episode by then
            action = policy.act(observation)
            assert isinstance(action, dict) and isinstance(action.get("name"), str), name
            observation, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        else:
            pytest.fail(f"scripted policy {name}: the episode outlived max_turns")
    env.close()


def test_tools_are_documented(env_id: str) -> None:
    """The model reads the docstrings: every tool has a description and every parameter one (``Args:``)."""
    inner = tool_env(gym.make(env_id))
    names = [tool.name for tool in inner.TOOLS]
    assert names and len(set(names)) == len(names) and FINISH not in names
    for schema in inner.tool_schemas:
        function = schema["function"]
        assert function["description"].strip(), f"{function['name']} has no description"
        for param, prop in function["parameters"]["properties"].items():
            assert prop.get("description", "").strip(), f"{function['name']}({param}) is not documented in Args:"


def test_id_patterns_match_the_ids_the_gold_path_uses(env: gym.Env[Any, Any], request: pytest.FixtureRequest) -> None:
    """Each ID the gold path passes under an ``ID_PATTERNS`` name matches its pattern, and the agent had seen it
    (the opening or an earlier result): a random policy harvesting the patterns can name real things."""
    if env.spec is not None and env.spec.id == "officegym/VendorReview-v0":
        # v0's pattern needs a hyphen, so the random baseline never reads "questionnaire". Fixing it changes
        # the random policy's published v0 scores, so it waits for its own issue (filed with this redesign).
        request.applymarker(pytest.mark.xfail(strict=True, reason="VendorReview doc_id pattern misses one-word IDs"))
    inner = tool_env(env)
    assert all(isinstance(p, re.Pattern) for p in inner.ID_PATTERNS.values())
    task_id = inner.task_ids[0]
    seen, _ = env.reset(seed=0, options={"task_id": task_id})
    for action in inner.gold_actions(task_id):
        for key, value in action["arguments"].items():
            if key in inner.ID_PATTERNS:  # a list argument takes a list of such IDs
                for one in value if isinstance(value, list) else [value]:
                    assert inner.ID_PATTERNS[key].fullmatch(one), f"{key}: {one!r} does not match its pattern"
                    assert one in seen, f"{key}: {one!r} is used before any observation showed it"
        seen += step(env, action)[0]
    play(env, [FINISH_ACTION])
