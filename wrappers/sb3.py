"""Stable-Baselines3's view of an officegym env: the README's training stack as one call, with the episode
statistics and the success flag SB3 logs.

SB3 fills its ``rollout/`` log from two places only. ``rollout/ep_rew_mean`` and ``rollout/ep_len_mean`` come
from ``info["episode"]``, which SB3's own ``Monitor`` writes when an episode ends; ``rollout/success_rate`` comes
from ``info["is_success"]`` on the step that ends an episode (``BaseAlgorithm._update_info_buffer`` reads it only
where the vec env reports ``done``). officegym's envs write neither, and must not start to: their infos are pinned
by ``tests/frozen/``, and so are the infos of ``DiscreteToolCalls`` and ``ProgressDiagnostics`` (the record hashes
both). So the flag gets its own small wrapper, :class:`SuccessInfo`, and :func:`sb3_env` builds the whole stack:

    env id -> DiscreteToolCalls -> ProgressDiagnostics -> SuccessInfo -> Monitor -> PotentialShaping

``Monitor`` sits *below* the shaping on purpose: ``ep_rew_mean`` is then the env's own return, i.e. the mean
grade (the reward is 0 until the last step), comparable between shaped and unshaped runs and with the
evaluation numbers; the shaped return is what PPO optimises, and its per-step terms are in
``info["shaping"]``. The grade's components stay in ``info["grade"]`` on the last step under the env's own keys
(the names the TRL and verifiers bridges log as ``grade_<name>``).

Stable-Baselines3 is imported only when :func:`sb3_env` is called, never by ``import officegym``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium as gym

from ..integrations.optional import import_optional
from .diagnostics import ProgressDiagnostics
from .discrete import DiscreteToolCalls
from .progress import SUCCESS_REWARD
from .shaping import PotentialShaping

SUCCESS_KEY = "is_success"
"""The key SB3 reads (``rollout/success_rate``); Gymnasium's and RLlib's users may read it too."""


def graded_success(info: Mapping[str, Any]) -> bool:
    """Whether the episode that just ended got full marks: ``info["grade"]["reward"]`` is 1.0 (to float
    rounding, as ``ProgressDiagnostics`` counts success). An ending without a grade is not a success."""
    grade = info.get("grade")
    if not isinstance(grade, Mapping):
        return False
    reward = grade.get("reward")
    return isinstance(reward, int | float) and float(reward) >= SUCCESS_REWARD - 1e-9


class SuccessInfo(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """``info["is_success"]`` on the step that ends an episode (terminated or truncated), from its grade.

    Only that step carries the key: SB3 ignores it elsewhere, and an always-present False would read as a
    verdict before the episode is over. Observations, rewards and the rest of ``info`` pass unchanged.
    """

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            info = {**info, SUCCESS_KEY: graded_success(info)}
        return observation, reward, terminated, truncated, info

    def action_masks(self) -> Any:
        """The mask of the action adapter beneath, so ``MaskablePPO`` reaches it through this wrapper."""
        return self.env.get_wrapper_attr("action_masks")()


def sb3_env(
    env_id: str,
    *,
    gamma: float | None = 0.99,
    dim: int = 256,
    max_steps: int | None = None,
    monitor_file: str | None = None,
    **env_kwargs: Any,
) -> gym.Env[Any, Any]:
    """The README's SB3 stack for ``gym.make(env_id, **env_kwargs)``, ready for ``MaskablePPO("MlpPolicy", ...)``.

    - ``gamma``: the learner's discount, which ``PotentialShaping`` must share to leave the optimal policy
      unchanged (SB3's default is 0.99); ``None`` trains on the env's own reward.
    - ``dim``, ``max_steps``: ``DiscreteToolCalls``' feature size and step limit.
    - ``monitor_file``: where SB3's ``Monitor`` writes its per-episode CSV (``None``: it keeps them in memory
      only); its rows carry ``is_success`` next to ``r``, ``l`` and ``t``.

    ``MaskablePPO`` reaches the adapter's mask through every layer (SB3's vec envs look it up with
    ``get_wrapper_attr``; so can you: ``env.get_wrapper_attr("action_masks")()``). Needs the ``sb3`` extra.

    Example (the README's; ``tests/integrations/sb3/`` runs it and reads SB3's log)::

        def make() -> gym.Env:
            return sb3_env("officegym/InvoiceApproval-v0", tier="single", max_turns=20)

        model = MaskablePPO("MlpPolicy", DummyVecEnv([make] * 4), gamma=0.99, learning_rate=1e-3, seed=0)
        model.learn(total_timesteps=50_000)  # logs rollout/ep_rew_mean and rollout/success_rate
    """
    monitor = import_optional(
        "stable_baselines3.common.monitor", "officegym.wrappers.sb3_env wraps the env in SB3's Monitor", "sb3"
    )
    env: gym.Env[Any, Any] = SuccessInfo(
        ProgressDiagnostics(DiscreteToolCalls(gym.make(env_id, **env_kwargs), dim=dim, max_steps=max_steps))
    )
    env = monitor.Monitor(env, filename=monitor_file, info_keywords=(SUCCESS_KEY,))
    return env if gamma is None else PotentialShaping(env, gamma=gamma)
