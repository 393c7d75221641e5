"""The Gymnasium face of every VendorReview version whose deals come from a generator: hand-written or held-out
test deals and seeded training deals, served by task id from a version's ``Deals``.

A version subclasses ``DealEnv`` with its class docstring (Gymnasium's sections), its ``DEALS``, tools, demo and
scripted policies; the episode, grading, progress, catalogue and split logic are the same for all of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from ...core import Action, Grade, ToolEnv, arguments
from ...core.catalogue import Catalogue
from ...core.selection import select_task_ids
from .env import opening_message
from .episode import VendorEpisode
from .grading import failure_report, grade_review
from .progress import vendor_potential, vendor_progress
from .scenario import ID_PATTERNS, TIERS, Scenario, TaxonomyItem
from .search import DocumentIndex

SPLITS: Final = ("test", "train")
MAX_TRAIN_DEALS: Final = 100_000
TRAIN_SOURCE_DEALS: Final = 200
"""Deals per training source of ``split_sources`` (source k starts at seed k * 200)."""


@dataclass(frozen=True)
class Deals:
    """What a version's ``tasks.py`` serves: its deals by task id, its splits, its prompt and catalogue types."""

    test_seed_start: int
    scenario_of: Callable[[str], Scenario]
    document_index: Callable[[str], DocumentIndex]
    tier_of: Callable[[str], str]
    test_task_ids: Callable[[], list[str]]
    train_task_ids: Callable[[int, int], list[str]]
    generated_id: Callable[[int], str]
    system_prompt_text: Callable[[], str]
    taxonomy: Callable[[], Sequence[TaxonomyItem]] | None = None
    """The requirement types of the discrete catalogue (None: the shared 24-item taxonomy)."""


class DealEnv(ToolEnv[VendorEpisode]):
    """The review of one generated or hand-written deal; see a version's class for its docstring."""

    DEALS: ClassVar[Deals]
    TIERS: ClassVar[tuple[str, ...]] = TIERS
    ID_PATTERNS: ClassVar[Mapping[str, re.Pattern[str]]] = ID_PATTERNS

    def __init__(
        self,
        split: str = "test",
        first_seed: int = 0,
        deals: int = 1000,
        task_ids: Sequence[str] | None = None,
        tier: str | None = None,
        max_turns: int = 24,
        render_mode: str | None = None,
        **unknown: Any,
    ) -> None:
        names = ("split", "first_seed", "deals", "task_ids", "tier", "max_turns", "render_mode")
        arguments.unknown_arguments(type(self).__name__, unknown, names)
        candidates = self._split_ids(split, first_seed, deals)
        tiers = {task_id: self.DEALS.tier_of(task_id) for task_id in candidates}
        example = repr(self.DEALS.generated_id(self.DEALS.test_seed_start))
        self._selected = select_task_ids(tiers, task_ids, tier, TIERS, "deal", example)
        super().__init__(max_turns=max_turns, render_mode=render_mode)

    def _task_ids(self) -> Sequence[str]:
        return self._selected

    def task_tier(self, task_id: str) -> str:
        return self.DEALS.tier_of(task_id)

    def system_prompt(self) -> str:
        return self.DEALS.system_prompt_text()

    def scenario(self, task_id: str) -> Scenario:
        return self.DEALS.scenario_of(task_id)

    def _start_episode(self, task_id: str) -> tuple[VendorEpisode, str, dict[str, Any]]:
        scenario = self.DEALS.scenario_of(task_id)
        episode = VendorEpisode(scenario, self.DEALS.document_index(task_id))
        return episode, opening_message(scenario), {"tier": scenario.tier}

    def _grade_episode(self, ctx: VendorEpisode) -> Grade:
        grade = grade_review(ctx)
        return Grade(grade.reward, grade.components, {**grade.diagnostics, **self.stats.as_diagnostics()})

    def progress(self) -> dict[str, float]:
        """The grade's components as they stand now plus the process counters (``shared/progress.py``)."""
        if self._ctx is None:
            raise RuntimeError("progress() needs an episode: call reset() first")
        return vendor_progress(self._ctx, self.stats)

    def _save_episode(self, ctx: VendorEpisode) -> dict[str, Any]:
        return ctx.saved()

    def _load_episode(self, state: dict[str, Any]) -> VendorEpisode:
        return VendorEpisode.restored(state, self.DEALS.scenario_of, self.DEALS.document_index)

    def gold_actions(self, task_id: str) -> list[Action]:
        """Read every document but the thread, then submit the answer key."""
        from .baselines import gold_path

        return gold_path(self.DEALS.scenario_of(task_id))

    def failure_report(self) -> list[dict[str, Any]]:
        if self._ctx is None:
            raise RuntimeError("failure_report() needs an episode: call reset() first")
        return failure_report(self._ctx)

    def shaping_potential(self, measures: Mapping[str, float]) -> float:
        return vendor_potential(measures)

    def action_catalogue(self, horizon: int) -> Catalogue:
        from .catalogue import VendorCatalogue

        taxonomy = self.DEALS.taxonomy() if self.DEALS.taxonomy is not None else None
        return VendorCatalogue(self.DEALS.scenario_of, horizon=horizon, taxonomy=taxonomy)

    @classmethod
    def split_sources(cls, split: str, count: int) -> list[dict[str, Any]]:
        """Train on generated deals (sources of 200 seeds each); evaluate on the test split (hand-written deals
        and held-out seeds), which no training source reaches."""
        if split == "train":
            last = min(count, cls.DEALS.test_seed_start // TRAIN_SOURCE_DEALS)
            return [
                {"split": "train", "first_seed": k * TRAIN_SOURCE_DEALS, "deals": TRAIN_SOURCE_DEALS}
                for k in range(last)
            ]
        return super().split_sources(split, count)

    def _split_ids(self, split: Any, first_seed: Any, deals: Any) -> list[str]:
        """The candidate task ids of a split, with one-line errors that name the fix."""
        if split not in SPLITS:
            raise arguments.ArgumentError(f"split must be 'test' or 'train', got {split!r}")
        if split == "test":
            return self.DEALS.test_task_ids()
        start = self.DEALS.test_seed_start
        deals = arguments.whole_number("deals", deals, minimum=1, maximum=MAX_TRAIN_DEALS, example=1000)
        first_seed = arguments.whole_number("first_seed", first_seed, minimum=0, maximum=start - 1, example=0)
        if first_seed + deals > start:
            raise arguments.ArgumentError(
                f"first_seed + deals must stay below {start:,} (held-out seeds), got {first_seed + deals:,}"
            )
        return self.DEALS.train_task_ids(first_seed, deals)
