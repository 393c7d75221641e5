"""The v1 deals by task id: hand-written test deals from ``assets/vendor_review/v1/deals`` and generated
deals named by their seed (``vr1-gen-000042``).

Seeds below ``TEST_SEED_START`` are the training split; ``TEST_SEEDS`` are held out for the test split beside
the hand-written deals. A generated deal is made on first use and kept in a bounded cache, so a training run
over many seeds never holds them all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Final

from ...core.assets import read_json, read_text
from ..shared.scenario import Scenario, scenario_from_dict, split_record
from ..shared.search import DocumentIndex
from .compose import compose_deal
from .library import load_library, v1_dir
from .plan import plan_deal, tier_of_seed

GENERATED: Final = re.compile(r"^vr1-gen-(\d{6})$")
TEST_SEED_START: Final = 900_000
TEST_SEEDS: Final = range(TEST_SEED_START, TEST_SEED_START + 20)
"""Held-out seeds of the test split; training seeds are 0 to TEST_SEED_START - 1."""
CACHE_SIZE: Final = 2048


def generated_id(seed: int) -> str:
    return f"vr1-gen-{seed:06d}"


def seed_of(task_id: str) -> int | None:
    """The seed of a generated deal's id, None for any other id."""
    match = GENERATED.match(task_id)
    return None if match is None else int(match.group(1))


def generate_record(seed: int) -> dict[str, Any]:
    """The deal record of ``seed`` (scenario keys plus ``annotations``), as the validator reads it."""
    return compose_deal(plan_deal(seed, load_library()), load_library(), generated_id(seed))


def scenario_of_record(record: Mapping[str, Any]) -> Scenario:
    return scenario_from_dict(split_record(record)[0])


@lru_cache(maxsize=CACHE_SIZE)
def generated_scenario(seed: int) -> Scenario:
    return scenario_of_record(generate_record(seed))


def deal_files() -> list[Path]:
    """The hand-written v1 deal files, sorted by name."""
    folder = v1_dir() / "deals"
    return sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)


@cache
def handwritten_records() -> dict[str, dict[str, Any]]:
    records = [read_json(path) for path in deal_files()]
    return {record["id"]: record for record in sorted(records, key=lambda r: str(r["id"]))}


@cache
def handwritten() -> dict[str, Scenario]:
    """The hand-written test deals by id (loaded once per process)."""
    return {deal_id: scenario_of_record(record) for deal_id, record in handwritten_records().items()}


def scenario_of(task_id: str) -> Scenario:
    """The deal of any v1 task id; KeyError for an id that names none."""
    seed = seed_of(task_id)
    if seed is not None:
        return generated_scenario(seed)
    return handwritten()[task_id]


def tier_of(task_id: str) -> str:
    """A task's tier; cheap for generated deals (the plan's first draw)."""
    seed = seed_of(task_id)
    return tier_of_seed(seed) if seed is not None else handwritten()[task_id].tier


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
    return read_text(v1_dir() / "system_prompt.md")
