"""``officegym.make_vec``: Gymnasium's own vector envs with the defaults that text environments need.

- ``shared_memory=False`` for ``"async"``: Gymnasium's shared memory cannot hold text. With it, our spaces make
  the workers fail, and a stock ``Text`` space even returns zeros silently (Gymnasium issue #1164's root cause).
- ``AutoresetMode.SAME_STEP``: the step that ends an episode already returns the next episode's first
  observation, with the finished episode's last observation and info (and so its ``grade``) in
  ``info["final_obs"]`` / ``info["final_info"]``. Gymnasium's default, ``NEXT_STEP``, spends one more call on a
  dead transition that ignores the action; where every action is an LLM call, that is a wasted request.

Everything else is ``gymnasium.make_vec``; pass ``vector_kwargs`` to override either default (they are checked
first, ``vector_kwargs.py``: an unknown key, a wrong type or ``shared_memory=True`` fails here in one line). A plain
``gym.make_vec(id, n, vectorization_mode="async")`` keeps Gymnasium's ``shared_memory=True``, which no registration
can change (a spec's ``vector_kwargs`` would replace the caller's); importing this module makes that fail at once,
in ``make_vec``, with the fix, instead of in every worker at the first reset (a 48-line ``KeyError: '?'``).

``"batched"`` is officegym's own mode (``officegym.vector.batched``): each worker process hosts
``envs_per_worker`` envs and steps them in one round trip, with the semantics (and results) of the sync vector env
with SAME_STEP autoreset. Its ``vector_kwargs`` are ``context`` (``"spawn"``, the default, or ``"forkserver"``) and
``parent_slice`` (default True: this process hosts the first slice itself and steps it while the workers step
theirs; False gives every slice a worker process) and ``spin_us`` (default 200: how long a waiting side polls its
pipe before it sleeps; 0 sleeps at once, see ``batched._await``).
"""

from __future__ import annotations

from typing import Any, NoReturn

import gymnasium as gym
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import create_shared_memory

from ..envs.core import arguments
from ..spaces import AnyText
from .batched import CONTEXTS, DEFAULT_SPIN_US, MAX_SPIN_US, BatchedVectorEnv
from .vector_kwargs import check_vector_kwargs

MODES = ("sync", "async", "batched")


@create_shared_memory.register(AnyText)
def refuse_shared_memory(space: AnyText, n: int = 1, ctx: Any = None) -> NoReturn:
    """``AsyncVectorEnv`` asks for its observation buffer before it starts a worker: refuse text there.

    Gymnasium's shared memory stores a ``Text`` as indices into its charset, so a character outside it (any
    ``?`` in a tool result) fails in the worker, and the buffer would be ``max_length`` (4 Mi) int32s per env;
    text observations go through the pipes instead (``shared_memory=False``)."""
    raise arguments.ArgumentError(
        f"text observations ({space!r}) cannot go through AsyncVectorEnv's shared memory; use "
        "officegym.make_vec(env_id, num_envs, vectorization_mode='async'), or pass "
        "vector_kwargs={'shared_memory': False} to gym.make_vec"
    )


def make_vec(
    env_id: str,
    num_envs: int = 1,
    vectorization_mode: str = "sync",
    vector_kwargs: dict[str, Any] | None = None,
    envs_per_worker: int | None = None,
    **env_kwargs: Any,
) -> VectorEnv[Any, Any, Any]:
    """``gym.make_vec`` with officegym's defaults, or a ``BatchedVectorEnv`` (see the module docstring)."""
    num_envs = arguments.whole_number("num_envs", num_envs, minimum=1, maximum=4096, example=8)
    if vectorization_mode not in MODES:
        raise arguments.ArgumentError(
            f"vectorization_mode must be 'sync', 'async' or 'batched', got {vectorization_mode!r}"
        )
    if vectorization_mode == "batched":
        if vector_kwargs is not None and not isinstance(vector_kwargs, dict):
            raise arguments.ArgumentError(
                f"vector_kwargs must be a dict such as {{'context': 'spawn'}}, got {type(vector_kwargs).__name__}"
            )
        return _make_batched(env_id, num_envs, envs_per_worker, vector_kwargs or {}, env_kwargs)
    if envs_per_worker is not None:
        raise arguments.ArgumentError("envs_per_worker applies only to vectorization_mode='batched'")
    options: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}
    if vectorization_mode == "async":
        options["shared_memory"] = False
    options.update(check_vector_kwargs(vectorization_mode, vector_kwargs))
    return gym.make_vec(
        env_id, num_envs=num_envs, vectorization_mode=vectorization_mode, vector_kwargs=options, **env_kwargs
    )


def _make_batched(
    env_id: str, num_envs: int, envs_per_worker: int | None, vector_kwargs: dict[str, Any], env_kwargs: dict[str, Any]
) -> VectorEnv[Any, Any, Any]:
    """Checks the batched mode's own arguments here, so a mistake fails before any process starts."""
    if envs_per_worker is not None:
        envs_per_worker = arguments.whole_number("envs_per_worker", envs_per_worker, minimum=1, maximum=4096, example=8)
    unknown = sorted(set(vector_kwargs) - {"context", "parent_slice", "spin_us"})
    if unknown:
        raise arguments.ArgumentError(
            "vectorization_mode='batched' takes only 'context', 'parent_slice' and 'spin_us' in vector_kwargs, "
            f"got {unknown}"
        )
    context = vector_kwargs.get("context", "spawn")
    if context not in CONTEXTS:
        raise arguments.ArgumentError(f"context must be 'spawn' or 'forkserver' (not 'fork'), got {context!r}")
    parent_slice = vector_kwargs.get("parent_slice", True)
    if not isinstance(parent_slice, bool):
        raise arguments.ArgumentError(f"parent_slice must be True or False, got {parent_slice!r}")
    spin_us = arguments.whole_number(
        "spin_us", vector_kwargs.get("spin_us", DEFAULT_SPIN_US), minimum=0, maximum=MAX_SPIN_US, example=200
    )
    return BatchedVectorEnv(
        env_id,
        num_envs,
        envs_per_worker=envs_per_worker,
        context=context,
        parent_slice=parent_slice,
        spin_us=spin_us,
        **env_kwargs,
    )
