"""The action mask where each learner looks for it: ``action_masks()`` through the README's wrapper stack (SB3's
MaskablePPO), and inside a ``Dict`` observation (RLlib's action-masking RLModule)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from officegym.wrappers import DiscreteToolCalls, MaskInObservation, PotentialShaping, ProgressDiagnostics

INVOICE = "officegym/InvoiceApproval-v0"


def readme_stack() -> Any:
    env = gym.make(INVOICE, tier="single", max_turns=20)
    return PotentialShaping(ProgressDiagnostics(DiscreteToolCalls(env)), gamma=0.99)


def test_action_masks_is_reachable_through_the_readme_stack() -> None:
    stack = readme_stack()
    stack.reset(seed=0)
    mask = stack.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (stack.action_space.n,) and 0 < mask.sum() < mask.size
    assert np.array_equal(mask, stack.get_wrapper_attr("action_masks")())


def test_the_mask_rides_in_a_dict_observation_and_follows_every_step() -> None:
    env = MaskInObservation(readme_stack())
    check_env(env.unwrapped)
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    rng = np.random.default_rng(0)
    for _ in range(15):
        allowed = np.flatnonzero(observation["action_mask"])
        assert np.array_equal(observation["action_mask"].astype(bool), env.get_wrapper_attr("action_masks")())
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(allowed)))
        assert env.observation_space.contains(observation)
        if terminated or truncated:
            observation, _ = env.reset()


def test_an_env_without_a_mask_is_refused_at_construction() -> None:
    with pytest.raises(TypeError, match="needs a Discrete action space"):
        MaskInObservation(gym.make(INVOICE, tier="single"))
    with pytest.raises(AttributeError):
        MaskInObservation(gym.make("CartPole-v1"))
