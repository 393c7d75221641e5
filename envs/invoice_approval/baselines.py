"""InvoiceApproval's own scripted policy: the reference solver, live, as ``solver``.

Unlike the oracle, which replays a stored path, this policy works from observations alone: it reads the work
order, calls tools and decides, so it also solves tasks of companies generated from other seeds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.actions import FINISH_ACTION, Action
from ..core.tool_env import PolicyFactory
from .entities import ID_PATTERNS
from .rules import Steps, solver_steps

INVOICE_ID = ID_PATTERNS["invoice_id"]


class InvoiceSolverPolicy:
    name = "solver"

    def __init__(self) -> None:
        self._steps: Steps | None = None
        self._started = False

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        scope = list(dict.fromkeys(INVOICE_ID.findall(observation)))
        self._steps = solver_steps(scope)
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


BASELINES: Mapping[str, PolicyFactory] = {"solver": lambda env, seed: InvoiceSolverPolicy()}
