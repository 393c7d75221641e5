"""The adapters every domain gets from the contract: chat transcripts, the discrete SB3 adapter (where the domain
offers a catalogue), progress diagnostics and potential shaping, and officegym's vector envs."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import officegym
from officegym.envs.core import FINISH_ACTION
from officegym.wrappers import ChatWrapper, DiscreteToolCalls, PotentialShaping, ProgressDiagnostics

from .conftest import SMALL_KWARGS, close, gold_path, make, offers_catalogue, step, tool_env

RANDOM_EPISODES = 3


def assistant_call(turn: int, action: dict[str, Any]) -> dict[str, Any]:
    """An assistant message with one native tool call (what an OpenAI-compatible server returns)."""
    call = {
        "id": f"call_{turn}",
        "type": "function",
        "function": {"name": action["name"], "arguments": json.dumps(action["arguments"])},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def test_chat_wrapper_plays_the_gold_path(env_id: str) -> None:
    env = ChatWrapper(make(env_id))
    task_id = tool_env(env).task_ids[0]
    env.reset(seed=0, options={"task_id": task_id})
    result = None
    for turn, action in enumerate(tool_env(env).gold_actions(task_id)):
        result = step(env, assistant_call(turn, action))
        if result[2] or result[3]:
            break
    else:
        result = step(env, {"role": "assistant", "content": "All done."})  # no tool call: finish
    _, reward, terminated, _, info = result
    assert terminated and reward == 1.0 and info["grade"]["reward"] == 1.0
    assert info["stop_reason"] in ("finish", "terminal_tool")
    tool_messages = [m for m in env.messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [f"call_{k}" for k in range(len(tool_messages))]
    close(env)


def discrete(env_id: str) -> DiscreteToolCalls:
    env = make(env_id)
    if not offers_catalogue(env):
        pytest.skip(f"{env_id} offers no action catalogue")
    return DiscreteToolCalls(env)


def test_sb3_check_env_on_the_discrete_adapter(env_id: str) -> None:
    env = discrete(env_id)
    sb3_check_env(env, warn=False)
    close(env)


def test_discrete_masked_random_episodes_end(env_id: str) -> None:
    env = discrete(env_id)
    rng = np.random.default_rng(0)
    space = env.observation_space
    for seed in range(RANDOM_EPISODES):
        features, _ = env.reset(seed=seed)
        assert space.contains(features)
        for _ in range(env.max_steps + 1):
            mask = env.action_masks()
            assert mask.shape == (len(env.catalogue.labels),) and mask.dtype == np.bool_ and mask.any()
            features, _, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(mask)))
            assert space.contains(features), f"features left the Box after {info['action_label']}"
            if terminated or truncated:
                assert "grade" in info
                break
        else:
            pytest.fail(f"seed {seed}: the episode outlived the adapter's max_steps")
    close(env)


def test_shaping_telescopes_on_the_gold_path(env_id: str) -> None:
    """With gamma = 1 the shaped return is the env's return minus Phi(s0) (Phi = 0 at termination)."""
    env = PotentialShaping(ProgressDiagnostics(make(env_id)), gamma=1.0)
    task_id = tool_env(env).task_ids[0]
    _, info = env.reset(seed=0, options={"task_id": task_id})
    start, shaped, true = info["shaping"]["potential"], 0.0, 0.0
    for action in gold_path(env, task_id):
        _, reward, terminated, truncated, info = step(env, action)
        shaped, true = shaped + reward, true + info["shaping"]["env_reward"]
        if terminated or truncated:
            break
    assert true == 1.0 and shaped == pytest.approx(true - start)
    assert info["episode_diagnostics"]["success"] == 1.0
    close(env)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_steps_and_autoresets(env_id: str, mode: str) -> None:
    envs: Any = officegym.make_vec(env_id, 2, mode, **SMALL_KWARGS.get(env_id, {}))
    task_id = tool_env(make(env_id)).task_ids[0]
    first = tool_env(make(env_id)).gold_actions(task_id)[0]
    observations, _ = envs.reset(seed=0, options={"task_id": task_id})
    assert all(isinstance(o, str) and o for o in observations)
    _, rewards, terminated, truncated, _ = envs.step((first, first))
    assert rewards.tolist() == [0.0, 0.0] and not terminated.any() and not truncated.any()
    for _ in range(2):  # the second finish runs only if autoreset started new episodes
        observations, _, terminated, _, infos = envs.step((FINISH_ACTION, FINISH_ACTION))
        assert terminated.all() and "grade" in infos["final_info"]
        assert not any(o.startswith("Error") for o in infos["final_obs"]), infos["final_obs"]
        assert all(isinstance(o, str) and o and not o.startswith("Error") for o in observations)
    envs.close()
