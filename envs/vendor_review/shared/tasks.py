"""The deal data every version reads: the requirement taxonomy, from ``assets/vendor_review/shared``.

Read through the one asset loader (``envs/core/assets.py``) and typed by ``scenario.py``. Each version loads
its own deals (``v0/tasks.py``, ``v1/tasks.py``).
"""

from __future__ import annotations

from pathlib import Path

from ...core.assets import asset_path, read_json
from .scenario import TaxonomyItem, taxonomy_from_json


def shared_dir() -> Path:
    """The VendorReview assets every version shares."""
    return asset_path("vendor_review", "shared")


def load_taxonomy() -> tuple[TaxonomyItem, ...]:
    """The fixed 24-item requirement taxonomy, in the spec's order."""
    return taxonomy_from_json(read_json(shared_dir() / "taxonomy.json"))
