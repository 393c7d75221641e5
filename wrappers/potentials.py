"""The shaping potentials Phi(s) of each domain, as functions of its progress measures.

Potential-based shaping (Ng, Harada & Russell 1999) leaves the optimal policy unchanged for *any* Phi, so
the choice only decides how early and how strongly a learner hears about progress. Each potential here is
built from the measures the grade itself is made of, and is bounded by the size of the final reward:

InvoiceApproval: ``Phi(s) = (decided_correctly - decided_wrongly - collateral_changes) / scope_size``.
    A correct decision raises Phi by 1/n, a wrong one (including on an invoice outside the work order)
    lowers it by 1/n; reads change nothing. With the terminal potential 0, the credit of a correct decision is
    paid at the decision and handed back at the end, where the grade pays it for real; so the all-or-nothing
    grade gets a signal per invoice, and a wrong decision is felt when it is made.

VendorReview: ``Phi(s) = 0.1 * core_docs_read / core_docs``.
    The grade's process component (weight 0.1) is paid only for reading every core document before
    submitting; this spreads it over the reads. The gap and decision components exist only at submission,
    which ends the episode, so they have nothing to shape.

Both assume nothing about the discount: the shaping wrapper takes the learner's gamma, and must be given the
same gamma the learner discounts with for the optimal policy to be preserved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym

Potential = Callable[[Mapping[str, float]], float]
VENDOR_PROCESS_WEIGHT = 0.1


def invoice_potential(measures: Mapping[str, float]) -> float:
    """Net correct decisions per work-order invoice, minus collateral damage (see the module docstring)."""
    net = measures["decided_correctly"] - measures["decided_wrongly"] - measures["collateral_changes"]
    return net / max(1.0, measures["scope_size"])


def vendor_potential(measures: Mapping[str, float]) -> float:
    """The process component's share of the core documents read so far."""
    return VENDOR_PROCESS_WEIGHT * measures["core_docs_read"] / max(1.0, measures["core_docs"])


def default_potential(env: gym.Env[Any, Any]) -> Potential:
    """The potential of the env's domain; a clear error for an env without one."""
    from ..envs.invoice_approval.env import InvoiceApprovalEnv
    from ..envs.vendor_review.env import VendorReviewEnv

    inner = env.unwrapped
    if isinstance(inner, InvoiceApprovalEnv):
        return invoice_potential
    if isinstance(inner, VendorReviewEnv):
        return vendor_potential
    raise TypeError(f"no default shaping potential for {type(inner).__name__}; pass potential=...")
