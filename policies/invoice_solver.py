"""The InvoiceApproval reference solver as a live policy: it reads the work order, calls tools, decides.

Unlike the oracle, which replays a stored path, this policy works from observations alone, so it also
solves tasks of companies generated from other seeds.
"""

from __future__ import annotations

import re
from typing import Any

from ..envs.invoice_approval.policy import Steps, solver_steps
from .base import Action

INVOICE_ID = re.compile(r"ER-\d{4}-\d{5}")
FINISH: Action = {"name": "finish", "arguments": {}}


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
            return FINISH
        try:
            if not self._started:
                self._started = True
                return next(self._steps)
            return self._steps.send(observation)
        except StopIteration:
            self._steps = None
            return FINISH
