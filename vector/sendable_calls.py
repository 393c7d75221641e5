"""``SendableCalls``: the batched ``ToolCall`` space, whose actions reach every vector env already sendable.

Gymnasium's ``AsyncVectorEnv.step`` sends the actions slot by slot (``pipe.send`` for env 0, then env 1, ...).
When one slot's action does not pickle, ``pipe.send`` raises after the slots before it have been sent their
step: they step, their replies wait in the pipes, and every later step reads the previous step's replies (a
silent desync), ``reset()`` raises and ``close()`` hangs. Both vector envs split a batch of actions with
``gymnasium.vector.utils.iterate(self.action_space, actions)`` before they send or step anything, and officegym
registers how a batch of tool calls is split: importing officegym makes ``batch_space(ToolCall, n)`` a
``SendableCalls`` (a ``Tuple`` of the same ``ToolCall`` spaces, with the same seeds), whose ``iterate`` checks
the number of actions first and hands each one over through ``sendable.sendable``, which replaces an action
that does not pickle by a twin the env answers exactly as the original (its ``Error: ...``). So a plain
``gym.make_vec(id, n, vectorization_mode="async", vector_kwargs={"shared_memory": False})`` and
``officegym.make_vec`` both never send a partial step. The cost is a type check per action and step (a
``pickle.dumps`` for an action with nested values): measured on the 2-core machine under load, 3% of a sync step
of 8 ``get_invoice`` calls, and far less than the async env's own pickling and pipe round trip.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gymnasium.spaces import Space, Tuple
from gymnasium.vector.utils import batch_space, iterate

from ..spaces import ToolCall
from .sendable import sendable

_batch_custom = batch_space.dispatch(Space)


class SendableCalls(Tuple):  # type: ignore[type-arg]  # generic in gymnasium 1.4, not in 1.2
    """``batch_space(ToolCall, n)``: Gymnasium's ``Tuple`` of ``n`` tool-call spaces (same sampling, same
    equality), registered with ``iterate`` so that every action it splits off is sendable."""


@batch_space.register(ToolCall)
def batch_tool_calls(space: ToolCall, n: int = 1) -> SendableCalls:
    """Gymnasium's own batching of a custom space (so seeds and samples are unchanged), as a ``SendableCalls``."""
    batched = _batch_custom(space, n)
    calls = SendableCalls.__new__(SendableCalls)
    calls.__dict__.update(batched.__dict__)
    return calls


@iterate.register(SendableCalls)
def iterate_calls(space: SendableCalls, items: Any) -> Iterator[Any]:  # type: ignore[misc]  # see below
    """One sendable action per env, all checked before the caller sends the first (never a partial step).
    (mypy cannot match a singledispatch overload typed ``Space[_T], _T`` to a Tuple subclass.)"""
    if isinstance(items, dict | str | bytes):
        raise TypeError(
            f"a vector env of {len(space)} envs takes one action per env (a tuple or list of {len(space)} tool "
            f"calls), got a single {type(items).__name__}"
        )
    try:
        actions = list(items)
    except TypeError as error:
        raise TypeError(
            f"a vector env of {len(space)} envs takes a tuple or list of {len(space)} tool calls, "
            f"got {type(items).__name__}"
        ) from error
    if len(actions) != len(space):
        raise ValueError(f"a vector env of {len(space)} envs takes {len(space)} actions, got {len(actions)}")
    return iter([sendable(action) for action in actions])
