"""One VendorReview episode: the deal under review and what the analyst has done so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .scenario import Scenario
from .search import DocumentIndex


@dataclass
class VendorEpisode:
    """What the tools receive. Nothing here is shared between episodes; the scenario itself is immutable."""

    scenario: Scenario
    index: DocumentIndex
    docs_read: dict[str, None] = field(default_factory=dict)  # an ordered set: first reads, in order
    searches: int = 0
    questions: int = 0
    submission: dict[str, Any] | None = None
