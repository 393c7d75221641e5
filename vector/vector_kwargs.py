"""Checking ``vector_kwargs`` for the ``"sync"`` and ``"async"`` modes before Gymnasium builds anything.

Left to Gymnasium, a wrong value fails far from where it was passed or not at all: an unknown key is a
``TypeError`` from ``__init__`` that does not say which keys exist, a list instead of a dict fails inside
``dict.update``, ``shared_memory="no"`` is read as true and then refused as if ``True`` had been meant,
``copy="yes"`` is accepted silently, and ``context="bogus"`` fails only once the first worker starts. Here each
gets one line naming the key and what to pass. The accepted keys are read from the vector env's signature, so
they follow the installed Gymnasium (``max_concurrency`` exists from 1.3); the values Gymnasium checks well itself
(``max_concurrency``, ``worker``, ``observation_mode``) are left to it.
"""

from __future__ import annotations

import inspect
import multiprocessing
from typing import Any

from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

from ..envs.core import arguments

_CLASSES: dict[str, type[Any]] = {"sync": SyncVectorEnv, "async": AsyncVectorEnv}
_FLAGS = ("copy", "daemon")


def accepted_keys(mode: str) -> list[str]:
    """The keyword arguments the installed Gymnasium's vector env for ``mode`` takes, besides ``env_fns``."""
    parameters = inspect.signature(_CLASSES[mode].__init__).parameters
    return [name for name in parameters if name not in ("self", "env_fns")]


def check_vector_kwargs(mode: str, vector_kwargs: Any) -> dict[str, Any]:
    """``vector_kwargs`` as a dict (``{}`` for None), or an ``ArgumentError`` naming the bad key and the fix."""
    if vector_kwargs is None:
        return {}
    if not isinstance(vector_kwargs, dict):
        raise arguments.ArgumentError(
            f"vector_kwargs must be a dict such as {{'copy': False}}, got {type(vector_kwargs).__name__}"
        )
    accepted = accepted_keys(mode)
    unknown = sorted(repr(key)[:40] for key in vector_kwargs if key not in accepted)
    if unknown:
        raise arguments.ArgumentError(
            f"vector_kwargs for vectorization_mode={mode!r} takes only {', '.join(accepted)}; got {', '.join(unknown)}"
        )
    for key in _FLAGS:
        if key in vector_kwargs and not isinstance(vector_kwargs[key], bool):
            raise arguments.ArgumentError(
                f"vector_kwargs[{key!r}] must be True or False, got {vector_kwargs[key]!r:.60}"
            )
    if "shared_memory" in vector_kwargs:
        _check_shared_memory(vector_kwargs["shared_memory"])
    if "context" in vector_kwargs:
        _check_context(vector_kwargs["context"])
    if "autoreset_mode" in vector_kwargs:
        _check_autoreset_mode(vector_kwargs["autoreset_mode"])
    return dict(vector_kwargs)


def _check_shared_memory(value: Any) -> None:
    if value is not False:
        shown = "True" if value is True else f"{value!r:.60} (it must be True or False, and only False works)"
        raise arguments.ArgumentError(
            f"vector_kwargs['shared_memory'] must be False for officegym's text observations (Gymnasium's shared "
            f"memory cannot hold text), got {shown}; leave it out, officegym.make_vec passes False"
        )


def _check_context(value: Any) -> None:
    methods = multiprocessing.get_all_start_methods()
    if value is not None and value not in methods:
        raise arguments.ArgumentError(
            f"vector_kwargs['context'] must be None or one of {', '.join(map(repr, methods))}, got {value!r:.60}"
        )


def _check_autoreset_mode(value: Any) -> None:
    values = [mode.value for mode in AutoresetMode]
    if not isinstance(value, AutoresetMode) and value not in values:
        raise arguments.ArgumentError(
            f"vector_kwargs['autoreset_mode'] must be a gymnasium.vector.AutoresetMode (or one of "
            f"{', '.join(map(repr, values))}), got {value!r:.60}"
        )
