"""``PotentialShaping``: dense, policy-preserving rewards from the domain's progress measures.

Ng, Harada & Russell (1999): adding ``F(s, s') = gamma * Phi(s') - Phi(s)`` to every reward leaves the
optimal policy of the discounted MDP unchanged, for any potential ``Phi`` over states, provided ``gamma`` is
the learner's own discount. Over an episode the bonuses telescope:

    sum_t gamma^t F_t = gamma^T Phi(s_T) - Phi(s_0)

so the shaped return differs from the env's return by a quantity that depends only on the start and end
states. Each domain's potential is its ``shaping_potential`` (in ``envs/<domain>/progress.py``).

Terminal states. A terminated episode ends in an absorbing state whose potential is 0 (Ng et al.'s condition
for episodic tasks): ``F = 0 - Phi(s)`` on the last step, which hands back whatever the potential had paid
out, so the shaped return is the env's return minus ``Phi(s_0)``. A *truncated* episode was cut off by the
turn limit, not finished; learners that bootstrap on truncation (SB3 does, from the terminal observation)
estimate the value of ``s_T`` as a live state, so the real ``Phi(s_T)`` is kept and the bootstrap and the
bonus stay consistent.

The env's own reward and the potentials are in ``info["shaping"]``, so the true return can always be logged.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from ..envs.core import arguments
from ..envs.core.tool_env import ToolEnv
from .progress import Potential, progress_of

SHAPING_KEY = "shaping"


def default_potential(env: gym.Env[Any, Any]) -> Potential:
    """The potential of the env's domain; a clear error for an env without one."""
    inner = env.unwrapped
    if not isinstance(inner, ToolEnv):
        raise TypeError(f"no default shaping potential for {type(inner).__name__}; pass potential=...")
    return inner.shaping_potential


class PotentialShaping(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Adds ``gamma * Phi(s') - Phi(s)`` to each reward (``Phi`` = 0 on termination)."""

    def __init__(self, env: gym.Env[Any, Any], *, gamma: float = 0.99, potential: Potential | None = None) -> None:
        gamma = arguments.fraction("gamma", gamma, why="use the learner's own discount")
        gym.utils.RecordConstructorArgs.__init__(self, gamma=gamma)
        gym.Wrapper.__init__(self, env)
        self.gamma = gamma
        self.potential: Potential = potential if potential is not None else default_potential(env)
        self.last_potential = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = super().reset(seed=seed, options=options)
        self.last_potential = self.potential(progress_of(self.env))
        info[SHAPING_KEY] = {"potential": self.last_potential}
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        potential = 0.0 if terminated else self.potential(progress_of(self.env))
        bonus = self.gamma * potential - self.last_potential
        info[SHAPING_KEY] = {
            "env_reward": float(reward),
            "bonus": bonus,
            "potential": potential,
            "previous_potential": self.last_potential,
        }
        self.last_potential = potential
        return observation, float(reward) + bonus, terminated, truncated, info

    def action_masks(self) -> Any:
        """The mask of the action adapter beneath (``DiscreteToolCalls``), so that ``MaskablePPO`` and
        ``env.action_masks()`` reach it through this wrapper; an ``AttributeError`` if there is none."""
        return self.env.get_wrapper_attr("action_masks")()
