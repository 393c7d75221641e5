"""v2's scripted policy: v1's reference solver, live, as ``solver_v2`` (it plays v2's tools unchanged).

Named after the version like ``solver_v1``: a policy name tells the CLI which envs it plays."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.tool_env import PolicyFactory
from ..shared.baselines import StepsPolicy
from .rules import solver_steps


def SolverPolicy() -> StepsPolicy:
    return StepsPolicy("solver_v2", lambda observation, info: solver_steps(observation))


BASELINES: Mapping[str, PolicyFactory] = {"solver_v2": lambda env, seed: SolverPolicy()}
