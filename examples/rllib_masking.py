"""``MaskedPPOModule``: an RLlib PPO module that gives masked actions no probability.

RLlib reads no ``action_masks()`` from an env, so ``MaskInObservation`` carries the discrete adapter's mask in a
``Dict`` observation, ``{"action_mask": 0/1 per action, "observations": the features}``, and this module reads
it. RLlib has a module of that kind only among its examples (``ray.rllib.examples``), which it does not ship as
an API: they move and change between releases. This one is built on what RLlib documents for custom modules
and nothing else: ``TorchRLModule`` (``setup``, ``_forward``, ``_forward_train``), ``ValueFunctionAPI``
(``compute_values``, which PPO needs for its value targets) and the batch keys in ``Columns``.

The networks match RLlib's default PPO module, so ``rllib_ppo --no-mask`` compares like with like: separate
policy and value trunks of ``fcnet_hiddens`` tanh layers (RLlib's default model config: 256, 256). A masked
action's logit is replaced by the lowest float, not added to it, so the logit stays finite (its probability is
exactly 0 and the entropy stays a number).

Importing this module imports torch and RLlib (the ``ray`` extra); ``rllib_ppo`` imports it only to train.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

DEFAULT_HIDDEN = (256, 256)  # RLlib's DefaultModelConfig.fcnet_hiddens, for a like-for-like comparison


def trunk(inputs: int, hidden: list[int]) -> nn.Sequential:
    """A stack of tanh layers (RLlib's default activation), ``inputs`` features in."""
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(inputs, size), nn.Tanh()]
        inputs = size
    return nn.Sequential(*layers)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` where ``mask`` allows the action, the dtype's lowest finite value where it does not."""
    lowest = torch.full_like(logits, torch.finfo(logits.dtype).min)
    return torch.where(mask > 0.5, logits, lowest)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """PPO's policy and value networks over ``MaskInObservation``'s ``Dict`` observations.

    Use it as ``config.rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOModule))``; the env's
    observation space must be the ``Dict`` of ``MaskInObservation`` and its action space ``Discrete``.
    """

    def setup(self) -> None:
        """Builds the networks for the features part of the observation (RLlib calls this from ``__init__``)."""
        features, actions = self._spaces()
        config = self.model_config if isinstance(self.model_config, dict) else {}
        hidden = [int(size) for size in config.get("fcnet_hiddens", DEFAULT_HIDDEN)]
        inputs = int(np.prod(features.shape))
        self._pi_trunk = trunk(inputs, hidden)
        self._vf_trunk = trunk(inputs, hidden)
        width = hidden[-1] if hidden else inputs
        self._pi_head = nn.Linear(width, int(actions.n))
        self._vf_head = nn.Linear(width, 1)

    def _spaces(self) -> tuple[spaces.Box, spaces.Discrete[Any]]:
        """The features' ``Box`` and the ``Discrete`` actions, or a ``ValueError`` that names the wrapper."""
        observation, action = self.observation_space, self.action_space
        if not (
            isinstance(observation, spaces.Dict)
            and set(observation.spaces) == {"action_mask", "observations"}
            and isinstance(observation["observations"], spaces.Box)
            and isinstance(action, spaces.Discrete)
        ):
            raise ValueError(
                "MaskedPPOModule needs the Dict observation of officegym.wrappers.MaskInObservation (around the "
                f"DiscreteToolCalls adapter) and a Discrete action space, got {observation} and {action}"
            )
        return observation["observations"], action

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Masked action logits, for sampling and for inference."""
        observation = batch[Columns.OBS]
        features = self._features(observation)
        logits = self._pi_head(self._pi_trunk(features))
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, observation["action_mask"])}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """As ``_forward``, plus the value trunk's output, which ``compute_values`` then reuses."""
        out = self._forward(batch, **kwargs)
        out[Columns.EMBEDDINGS] = self._vf_trunk(self._features(batch[Columns.OBS]))
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The value estimate of each observation, shape ``(B,)`` (the mask plays no part in it)."""
        if embeddings is None:
            embeddings = self._vf_trunk(self._features(batch[Columns.OBS]))
        values: torch.Tensor = self._vf_head(embeddings).squeeze(-1)
        return values

    @staticmethod
    def _features(observation: dict[str, torch.Tensor]) -> torch.Tensor:
        """The features flattened to one row per observation (the adapter's are already flat)."""
        features = observation["observations"]
        return features.reshape(features.shape[0], -1).float()
