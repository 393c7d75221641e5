"""The shipped deals: scenario files, the taxonomy and the cast, loaded from ``assets/vendor_review``.

Everything is read through the one asset loader (``envs/core/assets.py``) and typed by ``scenario.py``.
Loaded once per process: every env instance shares the scenarios and their search indexes.
"""

from __future__ import annotations

from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path

from ..core.assets import asset_path, read_json, read_text
from .scenario import (
    CastIds,
    Scenario,
    ScenarioFormatError,
    TaxonomyItem,
    cast_ids_from_json,
    scenario_from_dict,
    taxonomy_from_json,
)
from .search import DocumentIndex


def assets_dir() -> Path:
    """The shipped VendorReview assets."""
    return asset_path("vendor_review")


def scenario_files() -> list[Path]:
    """Every shipped scenario file, sorted by file name."""
    folder = assets_dir() / "scenarios"
    return sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)


def load_scenario(path: str | Path | Traversable) -> Scenario:
    """Load and type one scenario file (shape only; run the validator for the content rules)."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise ScenarioFormatError(f"{path}: a scenario file must hold a JSON object")
    return scenario_from_dict(data)


def load_all_scenarios() -> tuple[Scenario, ...]:
    """All shipped scenarios, sorted by id so task order is stable across machines."""
    return tuple(sorted((load_scenario(f) for f in scenario_files()), key=lambda s: s.id))


def load_taxonomy() -> tuple[TaxonomyItem, ...]:
    """The fixed 24-item requirement taxonomy, in the spec's order."""
    return taxonomy_from_json(read_json(assets_dir() / "taxonomy.json"))


def load_cast_ids() -> CastIds:
    """The buyer and vendor IDs of ``cast.json``."""
    return cast_ids_from_json(read_json(assets_dir() / "cast.json"))


@cache
def system_prompt_text() -> str:
    return read_text(assets_dir() / "system_prompt.md")


@cache
def scenarios() -> dict[str, Scenario]:
    """The shipped scenarios by ID (loaded once per process)."""
    return {s.id: s for s in load_all_scenarios()}


@cache
def document_index(scenario_id: str) -> DocumentIndex:
    """The search index of one deal's documents (built once per process)."""
    return DocumentIndex.build(scenarios()[scenario_id].documents)
