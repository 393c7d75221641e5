"""One VendorReview episode: the deal under review and what the analyst has done so far."""

from __future__ import annotations

import copy
from collections.abc import Callable
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

    def saved(self) -> dict[str, Any]:
        """What a fork or a pickle keeps of the episode: the deal's id and what the analyst did (the deal
        itself is rebuilt from its id, not copied)."""
        return {
            "scenario": self.scenario.id,
            "docs_read": list(self.docs_read),
            "searches": self.searches,
            "questions": self.questions,
            "submission": copy.deepcopy(self.submission),
        }

    @classmethod
    def restored(
        cls,
        state: dict[str, Any],
        scenario_of: Callable[[str], Scenario],
        index_of: Callable[[str], DocumentIndex],
    ) -> VendorEpisode:
        """The episode ``saved`` described, with the deal and its index looked up by id."""
        deal_id = state["scenario"]
        return cls(
            scenario_of(deal_id),
            index_of(deal_id),
            dict.fromkeys(state["docs_read"]),
            state["searches"],
            state["questions"],
            copy.deepcopy(state["submission"]),
        )
