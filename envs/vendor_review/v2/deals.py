"""The v2 deals by task id: hand-written test deals from ``assets/vendor_review/v2/deals`` (``vr2-hard-03``) and
generated deals named by their seed (``vr2-gen-000042``).

Seeds below ``TEST_SEED_START`` are the training split, written with the train pools; ``TEST_SEEDS`` join the
hand-written deals in the test split, written with the test pools (other sentence frames, nouns, value forms,
vendors and buyers); the hand-written deals have frames, vendors and buyers of their own. A generated deal is
made on first use and kept in a bounded cache, so a training run over many seeds never holds them all.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Final

from ...core.assets import asset_path, read_json, read_text
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


def deal_files() -> list[Path]:
    """The hand-written v2 deal files, sorted by name."""
    folder = asset_path("vendor_review", "v2", "deals")
    return sorted((f for f in folder.glob("vr2-*.json")), key=lambda f: f.name) if folder.is_dir() else []


@cache
def handwritten_records() -> dict[str, dict[str, Any]]:
    records = [read_json(path) for path in deal_files()]
    return {str(record["id"]): record for record in sorted(records, key=lambda r: str(r["id"]))}


@cache
def handwritten() -> dict[str, Scenario]:
    """The hand-written test deals by id (loaded once per process)."""
    return {deal_id: scenario_from_dict(split_record(r)[0]) for deal_id, r in handwritten_records().items()}


def scenario_of(task_id: str) -> Scenario:
    """The deal of a v2 task id; KeyError for an id that names none."""
    seed = seed_of(task_id)
    return handwritten()[task_id] if seed is None else generated_scenario(seed)


def tier_of(task_id: str) -> str:
    seed = seed_of(task_id)
    return handwritten()[task_id].tier if seed is None else tier_of_seed(seed)


def test_task_ids() -> list[str]:
    """The test split: every hand-written deal, then the held-out generated ones."""
    return [*handwritten(), *(generated_id(seed) for seed in TEST_SEEDS)]


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
