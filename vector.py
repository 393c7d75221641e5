"""``officegym.make_vec``: Gymnasium's own vector envs with the defaults that text environments need.

- ``shared_memory=False`` for ``"async"``: Gymnasium's shared memory cannot hold text. With it, our spaces make
  the workers fail, and a stock ``Text`` space even returns zeros silently (Gymnasium issue #1164's root cause).
- ``AutoresetMode.SAME_STEP``: the step that ends an episode already returns the next episode's first
  observation, with the finished episode's last observation and info (and so its ``grade``) in
  ``info["final_obs"]`` / ``info["final_info"]``. Gymnasium's default, ``NEXT_STEP``, spends one more call on a
  dead transition that ignores the action; where every action is an LLM call, that is a wasted request.

Everything else is ``gymnasium.make_vec``; pass ``vector_kwargs`` to override either default.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.vector import AutoresetMode, VectorEnv

from officegym.envs.core import arguments


def make_vec(
    env_id: str,
    num_envs: int = 1,
    vectorization_mode: str = "sync",
    vector_kwargs: dict[str, Any] | None = None,
    **env_kwargs: Any,
) -> VectorEnv[Any, Any, Any]:
    """``gym.make_vec`` with officegym's defaults (see the module docstring)."""
    num_envs = arguments.whole_number("num_envs", num_envs, minimum=1, maximum=4096, example=8)
    if vectorization_mode not in ("sync", "async"):
        raise arguments.ArgumentError(f"vectorization_mode must be 'sync' or 'async', got {vectorization_mode!r}")
    options: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}
    if vectorization_mode == "async":
        options["shared_memory"] = False
    options.update(vector_kwargs or {})
    return gym.make_vec(
        env_id, num_envs=num_envs, vectorization_mode=vectorization_mode, vector_kwargs=options, **env_kwargs
    )
