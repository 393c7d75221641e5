"""VendorReview-v1's tasks are its deals: ``deals.py`` serves the hand-written test deals and the generated ones
by task id, and the splits they form. This module names that role and re-exports what the env uses."""

from __future__ import annotations

from typing import Final

from ..shared.deal_env import Deals
from .deals import (
    TEST_SEED_START,
    TEST_SEEDS,
    document_index,
    generated_id,
    scenario_of,
    system_prompt_text,
    test_task_ids,
    tier_of,
    train_task_ids,
)

DEALS: Final = Deals(
    test_seed_start=TEST_SEED_START,
    scenario_of=scenario_of,
    document_index=document_index,
    tier_of=tier_of,
    test_task_ids=test_task_ids,
    train_task_ids=train_task_ids,
    generated_id=generated_id,
    system_prompt_text=system_prompt_text,
)
"""v1's deals as the shared ``DealEnv`` serves them (the shared 24-item taxonomy for the catalogue)."""

__all__ = [
    "DEALS",
    "TEST_SEEDS",
    "TEST_SEED_START",
    "document_index",
    "generated_id",
    "scenario_of",
    "system_prompt_text",
    "test_task_ids",
    "tier_of",
    "train_task_ids",
]
