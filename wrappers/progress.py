"""Reading an environment's progress measures, whatever wrappers sit around it.

Every officegym domain implements ``progress()`` on the unwrapped env (the domain contract): the grade's
components and process counters as they stand now, computed from the episode state, under keys fixed per
domain (see ``envs/*/progress.py``). The diagnostics and shaping wrappers read them through this one
function, so a new domain only has to implement the method.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym

SUCCESS_REWARD = 1.0
Potential = Callable[[Mapping[str, float]], float]
"""A shaping potential Phi over a domain's progress measures."""


@runtime_checkable
class ReportsProgress(Protocol):
    """An env with per-step progress measures (floats under stable keys)."""

    def progress(self) -> dict[str, float]: ...


def progress_reporter(env: gym.Env[Any, Any]) -> ReportsProgress:
    """The unwrapped env, if it reports progress; a clear error (at wrapper construction) if it does not."""
    inner = env.unwrapped
    if not isinstance(inner, ReportsProgress):
        raise TypeError(
            f"{type(inner).__name__} has no progress() method; officegym's diagnostics and shaping "
            "wrappers need an env that reports its progress (every officegym env does)"
        )
    return inner


def progress_of(env: gym.Env[Any, Any]) -> dict[str, float]:
    """The unwrapped env's progress measures now."""
    return progress_reporter(env).progress()


def is_success(measures: dict[str, float]) -> bool:
    """An episode succeeded when the grade it would get now is full marks (the ``reward`` measure is 1.0)."""
    return measures["reward"] >= SUCCESS_REWARD - 1e-9
