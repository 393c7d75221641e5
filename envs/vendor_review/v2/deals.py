"""The v2 deals by task id: generated deals named by their seed (``vr2-gen-000042``).

Seeds below ``TEST_SEED_START`` are the training split, written with the train pools; ``TEST_SEEDS`` are the
test split, written with the test pools (other sentence frames, nouns, value forms, vendors and buyers). A deal
is made on first use and kept in a bounded cache, so a training run over many seeds never holds them all.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any, Final

from ...core.assets import asset_path, read_text
from ..shared.scenario import Scenario, TaxonomyItem, scenario_from_dict, split_record
from ..shared.search import DocumentIndex
from .claims import claims
from .compose import compose_deal
from .plan import TEST_SEED_START, plan_deal, tier_of_seed

GENERATED: Final = re.compile(r"^vr2-gen-(\d{6})$")
TEST_DEALS: Final = 200
TEST_SEEDS: Final = range(TEST_SEED_START, TEST_SEED_START + TEST_DEALS)
"""The test split: held-out seeds, written in the test split's words. Training seeds are 0 to 899,999."""
CACHE_SIZE: Final = 2048


def generated_id(seed: int) -> str:
    return f"vr2-gen-{seed:06d}"


def seed_of(task_id: str) -> int | None:
    match = GENERATED.match(task_id)
    return None if match is None else int(match.group(1))


def generate_record(seed: int) -> dict[str, Any]:
    """The deal record of ``seed`` (scenario keys plus ``annotations``), as the checks read it."""
    return compose_deal(plan_deal(seed), generated_id(seed))


@lru_cache(maxsize=CACHE_SIZE)
def generated_scenario(seed: int) -> Scenario:
    return scenario_from_dict(split_record(generate_record(seed))[0])


def scenario_of(task_id: str) -> Scenario:
    """The deal of a v2 task id; KeyError for an id that names none."""
    seed = seed_of(task_id)
    if seed is None:
        raise KeyError(task_id)
    return generated_scenario(seed)


def tier_of(task_id: str) -> str:
    seed = seed_of(task_id)
    if seed is None:
        raise KeyError(task_id)
    return tier_of_seed(seed)


def test_task_ids() -> list[str]:
    return [generated_id(seed) for seed in TEST_SEEDS]


def train_task_ids(first_seed: int, deals: int) -> list[str]:
    return [generated_id(seed) for seed in range(first_seed, first_seed + deals)]


@lru_cache(maxsize=CACHE_SIZE)
def document_index(task_id: str) -> DocumentIndex:
    return DocumentIndex.build(scenario_of(task_id).documents)


@cache
def system_prompt_text() -> str:
    return read_text(asset_path("vendor_review", "v2", "system_prompt.md"))


@cache
def taxonomy() -> tuple[TaxonomyItem, ...]:
    """v2's requirement types for the discrete catalogue: one per claim, named by its first keyword."""
    return tuple(TaxonomyItem(c.id, c.keywords[0], "", "") for c in claims())
