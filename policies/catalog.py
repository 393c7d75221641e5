"""Scripted policies by name, for the CLI, the demo and the tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from .base import Policy
from .invoice_solver import InvoiceSolverPolicy
from .oracle import OraclePolicy
from .random_policy import RandomPolicy

PolicyFactory = Callable[[gym.Env[Any, Any], int], Policy]

POLICIES: dict[str, PolicyFactory] = {
    "oracle": lambda env, seed: OraclePolicy(env.unwrapped.gold_actions),  # type: ignore[attr-defined]
    "random": lambda env, seed: RandomPolicy(seed),
    "solver": lambda env, seed: InvoiceSolverPolicy(),
}


def make_policy(name: str, env: gym.Env[Any, Any], seed: int = 0) -> Policy:
    """A scripted policy for ``env``; unknown names get an error that lists the known ones."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")
    return POLICIES[name](env, seed)
