"""InvoiceApproval's own scripted policy: the reference solver, live, as ``solver``.

Unlike the oracle, which replays a stored path, this policy works from observations alone: it reads the work
order, calls tools and decides, so it also solves tasks of companies generated from other seeds.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...core.tool_env import PolicyFactory
from ..shared.baselines import StepsPolicy
from ..shared.entities import ID_PATTERNS
from .rules import solver_steps

INVOICE_ID = ID_PATTERNS["invoice_id"]


def work_order_scope(observation: str) -> list[str]:
    """The invoice IDs a work order names, in its order, each once."""
    return list(dict.fromkeys(INVOICE_ID.findall(observation)))


def InvoiceSolverPolicy() -> StepsPolicy:
    """The reference solver on the work order's invoices, in the order the work order lists them."""
    return StepsPolicy("solver", lambda observation, info: solver_steps(work_order_scope(observation)))


BASELINES: Mapping[str, PolicyFactory] = {"solver": lambda env, seed: InvoiceSolverPolicy()}
