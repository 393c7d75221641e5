"""VendorReview-v2's tasks are its generated deals (``deals.py``): the splits they form and the ``Deals`` the
shared ``DealEnv`` serves."""

from __future__ import annotations

from typing import Final

from ..shared.deal_env import Deals
from .deals import (
    TEST_SEEDS,
    document_index,
    generated_id,
    scenario_of,
    system_prompt_text,
    taxonomy,
    test_task_ids,
    tier_of,
    train_task_ids,
)
from .plan import TEST_SEED_START

DEALS: Final = Deals(
    test_seed_start=TEST_SEED_START,
    scenario_of=scenario_of,
    document_index=document_index,
    tier_of=tier_of,
    test_task_ids=test_task_ids,
    train_task_ids=train_task_ids,
    generated_id=generated_id,
    system_prompt_text=system_prompt_text,
    taxonomy=taxonomy,
)

__all__ = ["DEALS", "TEST_SEEDS", "generated_id", "scenario_of"]
