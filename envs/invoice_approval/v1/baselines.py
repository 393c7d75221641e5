"""v1's scripted policy: the reference solver, live, as ``solver_v1`` (works from observations only).

Named apart from v0's ``solver``: a policy name tells the CLI which envs it plays, and v0's solver does not
play v1 (nor v1's v0)."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.tool_env import PolicyFactory
from ..shared.baselines import StepsPolicy
from .rules import solver_steps


def SolverPolicy() -> StepsPolicy:
    return StepsPolicy("solver_v1", lambda observation, info: solver_steps(observation))


BASELINES: Mapping[str, PolicyFactory] = {"solver_v1": lambda env, seed: SolverPolicy()}
