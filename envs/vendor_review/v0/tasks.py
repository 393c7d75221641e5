"""The shipped deals: scenario files and the cast, loaded from ``assets/vendor_review/v0`` (the taxonomy every
version shares is loaded by ``shared/tasks.py``).

Everything is read through the one asset loader (``envs/core/assets.py``) and typed by ``shared/scenario.py``.
Loaded once per process: every env instance shares the scenarios and their search indexes.
"""

from __future__ import annotations

from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path

from ...core.assets import asset_path, read_json, read_text
from ..shared.scenario import CastIds, Scenario, ScenarioFormatError, cast_ids_from_json, scenario_from_dict
from ..shared.search import DocumentIndex


def assets_dir() -> Path:
    """The shipped VendorReview-v0 assets."""
    return asset_path("vendor_review", "v0")


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
