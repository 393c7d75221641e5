"""The policy factory of a scripted evaluation, as a value: it names the policy, so it pickles.

The eval runner asks a factory for each episode's policy. A closure would do in one process, but the
``processes`` backend sends the factory to worker interpreters, which only a module-level class can reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from ..policies.chat import ScriptedChatPolicy
from ..policies.registry import make_policy


@dataclass(frozen=True)
class ScriptedPolicyFactory:
    """Gives each episode a fresh ``name`` policy from the catalogue, seeded with the episode's seed."""

    name: str

    def __call__(self, env: gym.Env[str, Any], seed: int) -> ScriptedChatPolicy:
        return ScriptedChatPolicy(make_policy(self.name, env, seed))
