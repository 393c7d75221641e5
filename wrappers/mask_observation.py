"""``MaskInObservation``: the discrete adapter's action mask inside the observation, the form RLlib masks with.

Stable-Baselines3's ``MaskablePPO`` asks the env for ``action_masks()`` every step. RLlib cannot call into the
env: its action-masking RLModule (``officegym.examples.rllib_masking.MaskedPPOModule``) reads the mask from a
``Dict`` observation, ``{"action_mask": Box(0, 1, (K,)), "observations": <the features>}``, and sets the logits of
masked actions to the lowest float. This wrapper builds that ``Dict`` from any env whose wrapper stack has
``action_masks()`` (``DiscreteToolCalls``, or the README's stack around it). ``examples/rllib_ppo.py`` uses it.
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

MaskedObservation = dict[str, NDArray[np.float32]]


class MaskInObservation(gym.ObservationWrapper[MaskedObservation, Any, Any], gym.utils.RecordConstructorArgs):
    """``{"action_mask": float32 0/1 per action, "observations": the wrapped env's observation}``."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        if not isinstance(env.action_space, spaces.Discrete):
            raise TypeError(f"MaskInObservation needs a Discrete action space, got {env.action_space}")
        self._masks = env.get_wrapper_attr("action_masks")  # fails at construction if there is no mask
        count = int(env.action_space.n)
        # a Dict space is a Space of dicts; gymnasium 1.4's stubs type it by its values, so it is cast
        self.observation_space = cast(
            "spaces.Space[MaskedObservation]",
            spaces.Dict(
                {"action_mask": spaces.Box(0.0, 1.0, (count,), np.float32), "observations": env.observation_space}
            ),
        )

    def observation(self, observation: Any) -> MaskedObservation:
        return {"action_mask": np.asarray(self._masks(), dtype=np.float32), "observations": observation}
