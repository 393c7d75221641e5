"""Scripted policies by name, for the CLI, the demo and the tests.

``oracle`` and ``random`` play every environment; ``solver`` is the InvoiceApproval reference solver working
from observations; ``paranoid`` and ``lazy`` are the VendorReview baselines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from .base import Policy
from .invoice_solver import InvoiceSolverPolicy
from .oracle import OraclePolicy, ScriptedPolicy
from .random_policy import RandomPolicy

PolicyFactory = Callable[[Any, int], Policy]


def _vendor(env: Any, name: str) -> Any:
    from ..envs.vendor_review import env as vendor

    if not isinstance(env, vendor.VendorReviewEnv):
        raise ValueError(f"the {name} policy plays officegym/VendorReview-v0 only")
    return vendor


def _paranoid(env: Any, seed: int) -> Policy:
    vendor = _vendor(env, "paranoid")
    return ScriptedPolicy("paranoid", lambda task_id: vendor.paranoid_path(env.scenario(task_id)))


def _lazy(env: Any, seed: int) -> Policy:
    vendor = _vendor(env, "lazy")
    return ScriptedPolicy("lazy", lambda task_id: vendor.lazy_path(env.scenario(task_id)))


def _solver(env: Any, seed: int) -> Policy:
    from ..envs.invoice_approval.env import InvoiceApprovalEnv

    if not isinstance(env, InvoiceApprovalEnv):
        raise ValueError("the solver policy plays officegym/InvoiceApproval-v0 only")
    return InvoiceSolverPolicy()


POLICIES: dict[str, PolicyFactory] = {
    "oracle": lambda env, seed: OraclePolicy(env.gold_actions),
    "random": lambda env, seed: RandomPolicy(seed),
    "solver": _solver,
    "paranoid": _paranoid,
    "lazy": _lazy,
}


def make_policy(name: str, env: gym.Env[Any, Any], seed: int = 0) -> Policy:
    """A scripted policy for ``env``; unknown or unsuitable names get an error that says which exist."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")
    return POLICIES[name](env.unwrapped, seed)
