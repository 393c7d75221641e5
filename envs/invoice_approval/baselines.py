"""InvoiceApproval's own scripted policy: the reference solver, live, as ``solver``.

Unlike the oracle, which replays a stored path, this policy works from observations alone: it reads the work
order, calls tools and decides, so it also solves tasks of companies generated from other seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..core.actions import FINISH_ACTION, Action
from ..core.tool_env import PolicyFactory
from .entities import ID_PATTERNS
from .rules import Steps, solver_steps

INVOICE_ID = ID_PATTERNS["invoice_id"]


StepsFactory = Callable[[str, dict[str, Any]], Steps]
"""Makes one episode's coroutine from the opening observation and the reset info."""


class StepsPolicy:
    """Plays a coroutine that yields tool calls and is sent each observation; ``finish`` once it returns. The
    reference solver is one (``rules.solver_steps``); the shortcut benchmark plays its variants the same way."""

    def __init__(self, name: str, factory: StepsFactory) -> None:
        self.name = name
        self._factory = factory
        self._steps: Steps | None = None
        self._started = False

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self._steps = self._factory(observation, info)
        self._started = False

    def act(self, observation: str) -> Action:
        if self._steps is None:
            return FINISH_ACTION
        try:
            if not self._started:
                self._started = True
                return next(self._steps)
            return self._steps.send(observation)
        except StopIteration:
            self._steps = None
            return FINISH_ACTION


def work_order_scope(observation: str) -> list[str]:
    """The invoice IDs a work order names, in its order, each once."""
    return list(dict.fromkeys(INVOICE_ID.findall(observation)))


def InvoiceSolverPolicy() -> StepsPolicy:
    """The reference solver on the work order's invoices, in the order the work order lists them."""
    return StepsPolicy("solver", lambda observation, info: solver_steps(work_order_scope(observation)))


BASELINES: Mapping[str, PolicyFactory] = {"solver": lambda env, seed: InvoiceSolverPolicy()}
