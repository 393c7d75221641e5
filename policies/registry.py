"""Scripted policies by name, for the CLI, the demo, the eval harness and the tests.

``oracle`` (the task's gold path) and ``random`` play every environment. Each domain adds its own through
the contract (``ToolEnv.scripted_policies()``: InvoiceApproval's ``solver``, VendorReview's ``paranoid`` and
``lazy``), so this module knows no domain: a new domain's policies appear here without an edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from ..envs.core.tool_env import PolicyFactory, ToolEnv
from ..registration import ENV_IDS, env_class
from .base import Policy
from .random_policy import RandomPolicy
from .scripted import OraclePolicy

GENERIC: Mapping[str, PolicyFactory] = {
    "oracle": lambda env, seed: OraclePolicy(env.gold_actions),
    "random": lambda env, seed: RandomPolicy(seed, id_patterns=env.ID_PATTERNS),
}


def policies_of(env_class_: type[ToolEnv[Any]]) -> dict[str, PolicyFactory]:
    """Every scripted policy that plays envs of this class: the generic ones, then the domain's own."""
    return {**GENERIC, **env_class_.scripted_policies()}


def policy_names() -> list[str]:
    """Every scripted policy name of every shipped env, in first-seen order (the CLI's choices)."""
    names = dict.fromkeys(GENERIC)
    for env_id in ENV_IDS:
        names.update(dict.fromkeys(env_class(env_id).scripted_policies()))
    return list(names)


def make_policy(name: str, env: gym.Env[Any, Any], seed: int = 0) -> Policy:
    """A scripted policy for ``env``; unknown or unsuitable names get an error that says which exist."""
    inner = env.unwrapped
    offered = policies_of(type(inner)) if isinstance(inner, ToolEnv) else dict(GENERIC)
    if name in offered:
        return offered[name](inner, seed)
    players = [env_id for env_id in ENV_IDS if name in env_class(env_id).scripted_policies()]
    if players:
        raise ValueError(f"the {name} policy plays {', '.join(players)} only")
    raise ValueError(f"unknown policy {name!r}; choose one of {', '.join(policy_names())}")


def policies_for(env_id: str) -> list[str]:
    """The scripted policies that play ``env_id``, the generic ones first (``officegym run --policy`` takes
    these)."""
    return list(policies_of(env_class(env_id)))
