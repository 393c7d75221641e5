"""Registration of every officegym env id with gymnasium, done on ``import officegym``."""

from __future__ import annotations

import gymnasium as gym

ENV_IDS = {
    "officegym/InvoiceApproval-v0": "officegym.envs.invoice_approval.env:InvoiceApprovalEnv",
    "officegym/VendorReview-v0": "officegym.envs.vendor_review.env:VendorReviewEnv",
}


def register_envs() -> None:
    """Register each id once (re-importing or reloading the package must not warn or fail)."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point)
